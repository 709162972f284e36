import { ConnectorError } from '../connector-error';
import type { OsfApi } from './api';
import { related, OSF_STORAGE, type OsfFile, type OsfNode } from './entities';
import { parseId } from './ids';

/** The OSF entity an id names. */
export type Located =
  | { kind: 'node'; node: OsfNode }
  | { kind: 'storage'; node: OsfNode; storage: OsfFile }
  /** a file or a folder */
  | { kind: 'file'; file: OsfFile };

/**
 * Finds what an id names: a storage by its node and provider, else a node (GET nodes/{id}/), else a file or
 * folder (GET files/{id}/). OSF's 403 (private) and 410 (deleted) come through as they are; an id that
 * names nothing answers 404.
 */
export async function locate(api: OsfApi, id: string): Promise<Located> {
  const parsed = parseId(id);
  if (parsed === null) throw ConnectorError.unknownResource(id);
  if (parsed.kind === 'storage') {
    const node = await api.entity<OsfNode>(`nodes/${parsed.node}/`, id);
    const storage = (await storagesOf(api, node)).find(
      (each) => each.attributes.provider === parsed.provider,
    );
    if (!storage) throw ConnectorError.unknownResource(id);
    return { kind: 'storage', node, storage };
  }
  try {
    return { kind: 'node', node: await api.entity<OsfNode>(`nodes/${id}/`, id) };
  } catch (error) {
    if (!(error instanceof ConnectorError) || error.status !== 404) throw error;
  }
  return { kind: 'file', file: await api.entity<OsfFile>(`files/${id}/`, id) };
}

/** A node's storage providers, OSF's own storage first (https://developer.osf.io/#operation/nodes_providers_list). */
export async function storagesOf(api: OsfApi, node: OsfNode): Promise<OsfFile[]> {
  const storages: OsfFile[] = [];
  for await (const storage of api.all<OsfFile>(related(node, 'files'))) storages.push(storage);
  const isOsfStorage = (storage: OsfFile) => (storage.attributes.provider === OSF_STORAGE ? 0 : 1);
  return storages.sort((a, b) => isOsfStorage(a) - isOsfStorage(b));
}

/** The node a file or folder belongs to (its `target` relationship). */
export function nodeOf(api: OsfApi, file: OsfFile): Promise<OsfNode> {
  return api.entity<OsfNode>(related(file, 'target'));
}

/** The node a located resource is or belongs to. */
export async function nodeOfLocated(api: OsfApi, located: Located): Promise<OsfNode> {
  return located.kind === 'file' ? nodeOf(api, located.file) : located.node;
}
