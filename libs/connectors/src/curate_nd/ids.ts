/**
 * CurateND's ids (PIDs) are `und:` and numerals or lowercase letters, the prefix often left out
 * (doc/api.md on ndlib/curate_nd's api-doc branch); the API answers them without it (Sufia::Noid.noidify) and
 * takes either (normalize_identifier). Any other shape names nothing there, so it is refused here rather than
 * sent: `..` or `x/y` would reach another route.
 */
const CURATE_ND_ID = /^(?:und:)?[0-9a-z]{1,64}$/;

/** The id as CurateND takes it in a path, or null when no CurateND resource can have it. */
export function upstreamId(id: string): string | null {
  return CURATE_ND_ID.test(id) ? id : null;
}

/** The id at the end of one of CurateND's item links (`https://curate.nd.edu/api/items/<id>`), if any. */
export function idFromItemUrl(link: unknown): string | null {
  if (typeof link !== 'string') return null;
  try {
    const last = new URL(link).pathname.split('/').filter(Boolean).pop() ?? '';
    return upstreamId(decodeURIComponent(last));
  } catch {
    return null;
  }
}
