import type { ResourceDetail, ResourceSummary } from '../connector';
import { ConnectorError } from '../connector-error';
import { byName } from '../upstream-values';
import { nameOf, type DavEntry } from './entities';
import { decodeId, encodeId } from './ids';
import type { WebdavSession } from './session';

/** How an entry appears: a top-level folder is a project, folders below it folders, the rest files. */
export function summarize(entry: Pick<DavEntry, 'path' | 'collection'>): ResourceSummary {
  const { path, collection } = entry;
  return {
    kind: collection ? 'container' : 'item',
    kindName: !collection ? 'file' : path.length === 1 ? 'project' : 'folder',
    id: encodeId(path),
    container: path.length > 1 ? encodeId(path.slice(0, -1)) : null,
    title: path[path.length - 1],
  };
}

/** Folders first, then files, each by name: the order a walk goes in. */
export function byKindAndName(a: DavEntry, b: DavEntry): number {
  return Number(b.collection) - Number(a.collection) || byName(nameOf(a), nameOf(b));
}

/** The path an id names, or 404. */
export function pathOf(id: string): string[] {
  const path = decodeId(id);
  if (!path) throw ConnectorError.unknownResource(id);
  return path;
}

/** A project, folder or file with its dates; a file with the checksums the server keeps, a folder with its members. */
export async function getResource({ api }: WebdavSession, id: string): Promise<ResourceDetail> {
  const [self, ...members] = await api.propfind(pathOf(id), 1, id);
  const { container: _container, ...summary } = summarize(self);
  return {
    ...summary,
    dateCreated: self.created,
    dateModified: self.modified,
    hashes: { md5: self.checksums.md5 ?? null, sha256: null },
    extra: {
      path: `/${self.path.join('/')}`,
      ...(self.collection ? {} : { size: self.size }),
      ...(self.etag ? { etag: self.etag } : {}),
      ...(self.contentType ? { content_type: self.contentType } : {}),
      ...(self.checksums.sha1 ? { sha1: self.checksums.sha1 } : {}),
    },
    children: self.collection ? members.sort(byKindAndName).map(summarize) : [],
  };
}
