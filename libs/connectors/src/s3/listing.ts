import type { CollectionPage, CollectionQuery, SearchFilter } from '../connector';
import { ConnectorError, foundOrNull } from '../connector-error';
import { MAX_PAGE_SIZE } from './options';
import { getResource, summarize } from './detail';
import { isWalkableName, parseId } from './ids';
import type { S3Session } from './session';

/** Project names in S3's order, as many as were asked for, and whether more follow. */
interface Names {
  names: string[];
  more: boolean;
}

/**
 * The first `wanted` top-level prefixes of the bucket (below the target's prefix), read page by page with
 * continuation tokens and no further: S3 lists keys in UTF-8 binary order and cannot jump to page n, nor
 * sort by date (a prefix has none), so page n of ours reads the n pages before it, each one call of up to
 * MAX_PAGE_SIZE keys. Objects lying at the top level beside the projects are not projects.
 */
async function prefixNames({ api, layout }: S3Session, bucket: string, wanted: number): Promise<Names> {
  const names: string[] = [];
  let token: string | undefined;
  do {
    const page = await api.listLevel(
      bucket,
      layout.prefix,
      Math.min(MAX_PAGE_SIZE, wanted - names.length),
      token,
    );
    for (const common of page.CommonPrefixes ?? []) {
      const name = (common.Prefix ?? '').slice(layout.prefix.length, -1);
      if (isWalkableName(name)) names.push(name);
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token && names.length < wanted);
  return { names: names.slice(0, wanted), more: names.length > wanted || token !== undefined };
}

/** The first `wanted` projects: prefixes of the one bucket, or the buckets the key lists (ListBuckets). */
async function projectNames(session: S3Session, wanted: number): Promise<Names> {
  const { bucket } = session.layout;
  if (bucket !== undefined) return prefixNames(session, bucket, wanted);
  const buckets = (await session.api.buckets()).map((found) => found.name).filter(isWalkableName);
  return { names: buckets.slice(0, wanted), more: buckets.length > wanted };
}

/** One page of `names`, with the page count the lookahead allows: this page, or one more. */
function pageOf({ names, more }: Names, page: number, perPage: number): CollectionPage {
  const resources = names
    .slice((page - 1) * perPage, page * perPage)
    .map((name) => summarize([name], 'container'));
  return { resources, totalPages: more ? page + 1 : Math.max(1, Math.ceil(names.length / perPage)), perPage };
}

/** The resource an id search names, at any depth, when the user may see it. */
async function findById(session: S3Session, id: string, page: number): Promise<CollectionPage> {
  const parsed = parseId(id);
  const found = parsed ? await foundOrNull(getResource(session, id)) : null;
  return {
    resources: found && parsed && page === 1 ? [summarize(parsed.segments, parsed.kind)] : [],
    totalPages: 1,
    perPage: session.perPage,
  };
}

/**
 * The projects whose names hold `value` (any case). S3 searches keys only by their start, and case-sensitively,
 * so every project's name is read (one call per 1,000 projects), never their files.
 */
async function findByName(session: S3Session, value: string, page: number): Promise<CollectionPage> {
  const needle = value.toLowerCase();
  const all = await projectNames(session, Number.MAX_SAFE_INTEGER);
  const names = all.names.filter((name) => name.toLowerCase().includes(needle));
  return pageOf({ names, more: false }, page, session.perPage);
}

function unsupported(filter: SearchFilter): ConnectorError {
  return new ConnectorError(400, `S3 targets are searched by general, title or id, not by ${filter}.`);
}

/** The user's projects in S3's order (by name), a page at a time, or those a search finds. */
export async function listResources(session: S3Session, query: CollectionQuery): Promise<CollectionPage> {
  const { search, page } = query;
  if (!search) return pageOf(await projectNames(session, page * session.perPage), page, session.perPage);
  switch (search.filter) {
    case 'id':
      return findById(session, search.value.trim(), page);
    case 'title':
    case 'general':
      return findByName(session, search.value.trim(), page);
    default:
      throw unsupported(search.filter);
  }
}
