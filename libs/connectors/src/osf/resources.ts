import type { HashAlgorithm, ResourceDetail, ResourceSummary } from '../connector';
import { isFolder, link, OSF_STORAGE, relatedId, type Hashes, type OsfFile, type OsfNode } from './entities';

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

/**
 * The checksums OSF (or WaterButler) keeps of a file, those it has: `extra.hashes`, where osfstorage files
 * have md5 and sha256 and other providers' files none.
 */
export function knownHashes(file: {
  attributes: { extra?: { hashes?: Hashes } };
}): Partial<Record<HashAlgorithm, string>> {
  const hashes = file.attributes.extra?.hashes ?? {};
  return Object.fromEntries(
    (['md5', 'sha256'] as const).flatMap((algorithm) =>
      hashes[algorithm] ? [[algorithm, hashes[algorithm]]] : [],
    ),
  );
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

/**
 * A file's WaterButler URL, where GET downloads it and PUT stores a new version: OSF gives it as the file's
 * `upload` link. Its `download` link leads to the OSF website instead (osf.io/download/<id>/), an origin that
 * is not trusted with the token and that sends requests without one to the login page.
 */
export function fileUrl(file: OsfFile): string {
  return link(file, 'upload');
}
