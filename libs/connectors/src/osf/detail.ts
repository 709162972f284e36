import type { HashAlgorithm, ResourceDetail, ResourceSummary } from '../connector';
import { isoDate } from '../upstream-values';
import type { OsfApi } from './api';
import {
  isFolder,
  knownHashes,
  readOnlyReason,
  related,
  relatedId,
  OSF_STORAGE,
  type OsfFile,
  type OsfNode,
} from './entities';
import { locate, nodeOf, storagesOf } from './locate';
import type { OsfSession } from './session';

/**
 * How OSF's entities appear as resources: projects and components are containers of kind `project`, a
 * node's storage providers containers of kind `storage`, folders and files keep OSF's kinds.
 */

export const PROJECT = 'project';

export function nodeSummary(node: OsfNode, container: string | null): ResourceSummary {
  return { kind: 'container', kindName: PROJECT, id: node.id, container, title: node.attributes.title };
}

/** A storage provider of a node; its title is the provider's name (`osfstorage`, `github`, ...). */
export function storageSummary(storage: OsfFile, nodeId: string): ResourceSummary {
  return {
    kind: 'container',
    kindName: 'storage',
    id: storage.id,
    container: nodeId,
    title: storage.attributes.name,
  };
}

export function fileSummary(file: OsfFile, container: string | null): ResourceSummary {
  return isFolder(file)
    ? { kind: 'container', kindName: 'folder', id: file.id, container, title: file.attributes.name }
    : { kind: 'item', kindName: 'file', id: file.id, container, title: file.attributes.name };
}

/** The resource that holds a file or folder: its parent folder, or at a storage's top the storage itself. */
export function containerOf(file: OsfFile): string | null {
  const node = relatedId(file, 'target');
  const path = (file.attributes.materialized_path ?? '').replace(/\/$/, '');
  if (node !== null && path.lastIndexOf('/') === 0) return storageContainer(node, file.attributes.provider);
  return relatedId(file, 'parent_folder');
}

/** Where the top of a storage sits: osfstorage's directly in its node (the layout walks follow). */
export function storageContainer(nodeId: string, provider: string): string {
  return provider === OSF_STORAGE ? nodeId : `${nodeId}:${provider}`;
}

export function hashesOf(file: OsfFile): Record<HashAlgorithm, string | null> {
  const known = knownHashes(file);
  return { md5: known.md5 ?? null, sha256: known.sha256 ?? null };
}

const NODE_EXTRA = [
  'category',
  'description',
  'public',
  'tags',
  'fork',
  'registration',
  'preprint',
  'wiki_enabled',
  'current_user_permissions',
  'current_user_is_contributor',
  'node_license',
] as const;

const FILE_EXTRA = [
  'provider',
  'path',
  'materialized_path',
  'size',
  'current_version',
  'last_touched',
  'guid',
  'checkout',
  'tags',
] as const;

function pick(attributes: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => key in attributes).map((key) => [key, attributes[key]]));
}

export function nodeExtra(node: OsfNode): ResourceDetail['extra'] {
  return { ...pick(node.attributes, NODE_EXTRA), html: node.links?.html ?? null };
}

export function fileExtra(file: OsfFile): ResourceDetail['extra'] {
  const downloads = file.attributes.extra?.downloads;
  return {
    ...pick(file.attributes, FILE_EXTRA),
    ...(downloads === undefined ? {} : { downloads }),
    html: file.links?.html ?? null,
  };
}

const NO_HASHES = { md5: null, sha256: null };

/** A summary's fields that a detail repeats (a detail names no container). */
function described({
  container: _container,
  ...summary
}: ResourceSummary): Omit<ResourceSummary, 'container'> {
  return summary;
}

/** The detail of a resource, with its children one level down. */
export async function getResource({ api }: OsfSession, id: string): Promise<ResourceDetail> {
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
