import type { RemoteFile, RemoteFolder } from '../connector';
import { PACKED_SUFFIX, PackedZip, type PackedFile, type PackedZipPlace } from './packed-zip';

type Entry = RemoteFolder | RemoteFile;

/**
 * A walk in which every packed zip (`<title>.presqt.zip`, a bag this service wrote because the target keeps
 * no folders) is replaced by the files and folders it holds, at the place of the zip, so that a download or a
 * transfer out gives back the tree that went in. The files of a folder come before its subfolders: a zip's
 * content is given once the folder's own files are through.
 */
export async function* unpackingWalk(
  walk: AsyncIterable<Entry>,
  algorithms: readonly string[],
  place: PackedZipPlace,
): AsyncIterable<Entry> {
  let packed: RemoteFile[] = [];
  for await (const entry of walk) {
    if (entry.kind === 'file' && entry.path.endsWith(PACKED_SUFFIX)) {
      packed.push(entry);
      continue;
    }
    if (entry.kind === 'folder' && packed.length > 0) {
      yield* unpackAll(packed, algorithms, place);
      packed = [];
    }
    yield entry;
  }
  yield* unpackAll(packed, algorithms, place);
}

async function* unpackAll(packed: RemoteFile[], algorithms: readonly string[], place: PackedZipPlace) {
  for (const file of packed) {
    const zip = await PackedZip.fetch(file, algorithms, place);
    if (!zip) {
      yield file;
      continue;
    }
    try {
      yield* unpacked(zip, file.path.slice(0, file.path.lastIndexOf('/') + 1));
    } finally {
      zip.release();
    }
  }
}

/** The zip's payload in walk order, below `prefix` (the zip's folder, ending in `/`). */
function* unpacked(zip: PackedZip, prefix: string): Iterable<Entry> {
  const files = new Map<string, PackedFile[]>();
  const subfolders = new Map<string, Set<string>>();
  const addFolder = (path: string) => {
    for (let cut = path.lastIndexOf('/'); path !== ''; cut = path.lastIndexOf('/')) {
      const parent = cut < 0 ? '' : path.slice(0, cut);
      const known = subfolders.get(parent) ?? new Set<string>();
      if (known.has(path)) return;
      subfolders.set(parent, known.add(path));
      path = parent;
    }
  };
  for (const folder of zip.folders) addFolder(folder);
  for (const file of zip.files) {
    const parent = file.path.includes('/') ? file.path.slice(0, file.path.lastIndexOf('/')) : '';
    addFolder(parent);
    const siblings = files.get(parent);
    if (siblings) siblings.push(file);
    else files.set(parent, [file]);
  }
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  function* visit(folder: string): Iterable<Entry> {
    if (folder !== '') yield { kind: 'folder', path: `${prefix}${folder}` };
    const inFolder = (files.get(folder) ?? []).sort((a, b) => byName(a.path, b.path));
    for (const file of inFolder) yield remoteFile(zip, file, prefix);
    for (const sub of [...(subfolders.get(folder) ?? [])].sort(byName)) yield* visit(sub);
  }
  yield* visit('');
}

function remoteFile(zip: PackedZip, file: PackedFile, prefix: string): RemoteFile {
  return {
    kind: 'file',
    path: `${prefix}${file.path}`,
    size: file.size,
    sourceHashes: async (wanted) =>
      Object.fromEntries(Object.entries(file.checksums).filter(([algorithm]) => wanted.includes(algorithm))),
    open: () => zip.open(file.path),
  };
}
