import type { ResourceDetail, ResourceSummary } from '../connector';
import { isoDate } from '../upstream-values';
import type { OsfApi } from './api';
import { isFolder, readOnlyReason, related, OSF_STORAGE, type OsfFile, type OsfNode } from './entities';
import { locate, nodeOf, storagesOf } from './locate';
import { fileExtra, fileSummary, hashesOf, nodeExtra, nodeSummary, storageSummary } from './resources';

const NO_HASHES = { md5: null, sha256: null };

/** A summary's fields that a detail repeats (a detail names no container). */
function described({
  container: _container,
  ...summary
}: ResourceSummary): Omit<ResourceSummary, 'container'> {
  return summary;
}

/** The detail of a resource, with its children one level down. */
export async function getResource({ api }: { api: OsfApi }, id: string): Promise<ResourceDetail> {
  const located = await locate(api, id);
  switch (located.kind) {
    case 'node': {
      const { node } = located;
      return {
        ...described(nodeSummary(node, null)),
        ...nodeDates(node),
        hashes: NO_HASHES,
        extra: nodeExtra(node),
        children: await nodeChildren(api, node),
        readOnly: readOnlyReason(node),
      };
    }
    case 'storage': {
      const { node, storage } = located;
      return {
        ...described(storageSummary(storage, node.id)),
        ...nodeDates(node),
        hashes: NO_HASHES,
        extra: { provider: storage.attributes.provider, node: node.id },
        children: await entries(api, storage, storage.id),
        readOnly: readOnlyReason(node),
      };
    }
    case 'file':
      return fileDetail(api, located.file);
  }
}

/**
 * Folders and storages have no dates at OSF, and files of other providers may lack them: theirs are the node's.
 * A folder also tells whether the user may write into it, which is its node's permission.
 */
async function fileDetail(api: OsfApi, file: OsfFile): Promise<ResourceDetail> {
  const { date_created: created, date_modified: modified } = file.attributes;
  const folder = isFolder(file);
  const node = folder || !(created && modified) ? await nodeOf(api, file) : undefined;
  const dates =
    created && modified
      ? { dateCreated: isoDate(created), dateModified: isoDate(modified) }
      : nodeDates(node!);
  return {
    ...described(fileSummary(file, null)),
    ...dates,
    hashes: folder ? NO_HASHES : hashesOf(file),
    extra: fileExtra(file),
    children: folder ? await entries(api, file, file.id) : [],
    readOnly: folder ? readOnlyReason(node!) : undefined,
  };
}

function nodeDates(node: OsfNode): Pick<ResourceDetail, 'dateCreated' | 'dateModified'> {
  return {
    dateCreated: isoDate(node.attributes.date_created),
    dateModified: isoDate(node.attributes.date_modified),
  };
}

/**
 * A node's children as walks lay them out: the files and folders at the top of its osfstorage, then its
 * other storages, then its components.
 */
async function nodeChildren(api: OsfApi, node: OsfNode): Promise<ResourceSummary[]> {
  const children: ResourceSummary[] = [];
  for (const storage of await storagesOf(api, node)) {
    if (storage.attributes.provider === OSF_STORAGE) children.push(...(await entries(api, storage, node.id)));
    else children.push(storageSummary(storage, node.id));
  }
  for await (const component of api.all<OsfNode>(related(node, 'children'))) {
    children.push(nodeSummary(component, node.id));
  }
  return children;
}

/** The files and folders directly inside a storage or folder (its `files` relationship). */
async function entries(api: OsfApi, folder: OsfFile, container: string): Promise<ResourceSummary[]> {
  const children: ResourceSummary[] = [];
  for await (const entry of api.all<OsfFile>(related(folder, 'files')))
    children.push(fileSummary(entry, container));
  return children;
}
