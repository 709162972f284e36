import type { RemoteFile, RemoteFolder } from '../connector';
import { ConnectorError } from '../connector-error';
import { byName, titleSegment } from '../upstream-values';
import type { DataverseApi } from './api';
import {
  checksumOf,
  datasetTitle,
  depositedName,
  depositedSize,
  folderOf,
  type FileMetadata,
} from './entities';
import { parseId } from './ids';
import { filesOf, readDataset, readFile } from './detail';
import type { DataverseSession } from './session';

/**
 * A file as deposited: its saved original for an ingested tabular file (name, size, and the checksum
 * Dataverse keeps, which is the original's), fetched as deposited (`DataverseApi.download`).
 */
function remoteFile(api: DataverseApi, path: string, metadata: FileMetadata): RemoteFile {
  const { dataFile } = metadata;
  const checksum = checksumOf(dataFile);
  return {
    kind: 'file',
    path,
    size: depositedSize(dataFile),
    sourceHashes: async (wanted) =>
      checksum && wanted.includes(checksum.algorithm) ? { [checksum.algorithm]: checksum.value } : {},
    open: () => api.download(String(dataFile.id)),
  };
}

/** The files of a dataset by folder, and every folder that holds files, its ancestors included. */
class Tree {
  private readonly files = new Map<string, FileMetadata[]>();
  private readonly folders = new Map<string, Set<string>>();

  constructor(metadata: readonly FileMetadata[]) {
    for (const file of metadata) {
      const folder = folderOf(file);
      const here = this.files.get(folder) ?? [];
      here.push(file);
      this.files.set(folder, here);
      for (let path = folder; path !== ''; path = parentOf(path)) this.subfolders(parentOf(path)).add(path);
    }
  }

  has(folder: string): boolean {
    return this.files.has(folder) || this.folders.has(folder);
  }

  /** A folder's content under `at` (its path in the walk): its files by name, then each subfolder's. */
  *walk(api: DataverseApi, folder: string, at: string): Generator<RemoteFolder | RemoteFile> {
    const files = [...(this.files.get(folder) ?? [])].sort((a, b) =>
      byName(depositedName(a), depositedName(b)),
    );
    for (const file of files) yield remoteFile(api, `${at}/${titleSegment(depositedName(file))}`, file);
    for (const sub of [...(this.folders.get(folder) ?? [])].sort(byName)) {
      const path = `${at}/${nameOf(sub)}`;
      yield { kind: 'folder', path };
      yield* this.walk(api, sub, path);
    }
  }

  private subfolders(folder: string): Set<string> {
    let set = this.folders.get(folder);
    if (!set) {
      set = new Set();
      this.folders.set(folder, set);
    }
    return set;
  }
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/**
 * A dataset (named by its title), a folder, or a single file. Dataverse lists a version's files flat, each with
 * its folder (`directoryLabel`), so a dataset's listing is read whole (it holds no bytes) before the walk
 * orders it; folders exist only where files are, so a walk has no empty folders.
 */
export async function* walk(
  { api }: DataverseSession,
  id: string,
): AsyncGenerator<RemoteFolder | RemoteFile> {
  const parsed = parseId(id);
  if (!parsed) throw ConnectorError.unknownResource(id);
  if (parsed.kind === 'file') {
    const file = await readFile(api, parsed.dataset, parsed.file, id);
    yield remoteFile(api, titleSegment(depositedName(file)), file);
    return;
  }
  const version = await readDataset(api, parsed.dataset, id);
  const tree = new Tree(await filesOf(api, parsed.dataset, id));
  const folder = parsed.kind === 'folder' ? parsed.path : '';
  if (folder !== '' && !tree.has(folder)) throw ConnectorError.unknownResource(id);
  const at = folder === '' ? titleSegment(datasetTitle(version)) : nameOf(folder);
  yield { kind: 'folder', path: at };
  yield* tree.walk(api, folder, at);
}
