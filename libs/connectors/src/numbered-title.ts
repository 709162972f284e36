/** One page of the titles a title search found, and whether more pages follow. */
export interface TitlePage {
  titles: string[];
  more: boolean;
}

/**
 * `wanted`, or `wanted (2)`, `wanted (3)`, ... the first the user does not have yet, for repositories where
 * titles are free text and a title search (Zenodo's, InvenioRDM's) finds the user's records holding the
 * phrase, page after page: the titles found that are not `wanted` or a numbered copy of it are not counted.
 */
export async function freeNumberedTitle(
  wanted: string,
  search: (page: number) => Promise<TitlePage>,
): Promise<string> {
  const literal = wanted.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const numbered = new RegExp(`^${literal}(?: \\(\\d+\\))?$`);
  const taken = new Set<string>();
  for (let page = 1, more = true; more; page++) {
    const found = await search(page);
    for (const title of found.titles) if (numbered.test(title)) taken.add(title);
    more = found.more;
  }
  let unique = wanted;
  for (let n = 2; taken.has(unique); n++) unique = `${wanted} (${n})`;
  return unique;
}
