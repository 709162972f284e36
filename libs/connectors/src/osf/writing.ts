import type {
  DuplicateAction,
  IncomingFile,
  PutFileResult,
  ResourceSummary,
  ResourceWriter,
  WriterOptions,
} from '../connector';
import { ConnectorError } from '../connector-error';
import { incomingDigest } from '../incoming-digest';
import type { OsfApi } from './api';
import {
  fileUrl,
  isFolder,
  knownHashes,
  link,
  related,
  requireWritable,
  OSF_STORAGE,
  type OsfFile,
  type OsfNode,
} from './entities';
import { locate, nodeOf, storagesOf, type Located } from './locate';
import { titleSegment } from '../upstream-values';
import { nodeSummary } from './detail';
import type { OsfSession } from './session';
import type { StoredFile } from './waterbutler';
import { checkPathNames, pathSegmentProblem } from '../name-rules';

/** A folder files are written into: where OSF lists it and where WaterButler takes new entries. */
interface Destination {
  /** its `files` relationship: its content, filterable by name and kind */
  filesUrl: string;
  uploadUrl: string;
  newFolderUrl: string;
  /** `/`-separated, as a walk of its project shows it */
  path: string;
  /**
   * It was empty when the writer started (startsEmpty) or made it: any entry in it is one the writer put, so
   * a file goes in without looking for one of its name first.
   */
  empty: boolean;
}

/** Makes a private (unless `publicProjects`) project, numbering a title the user already has at the top level. */
export async function createProject(
  { api, account, publicProjects, made }: OsfSession,
  title: string,
): Promise<ResourceSummary> {
  const taken = new Set<string>();
  // OSF's title filter matches substrings: every title this one could clash with is among its answers
  const query = { 'filter[parent]': 'null', 'filter[title]': title };
  for await (const node of api.all<OsfNode>(account.nodesUrl, query)) taken.add(node.attributes.title);
  let candidate = title;
  for (let n = 2; taken.has(candidate); n++) candidate = `${title} (${n})`;
  const node = await api.create<OsfNode>('nodes/', 'nodes', {
    title: candidate,
    category: 'project',
    public: publicProjects,
  });
  made.set(node.id, node);
  return nodeSummary(node, null);
}

/**
 * A writer into a project or component (its osfstorage), a storage or a folder. Each file is stored as it is
 * put, so there is nothing to commit; folders met on the way are found or made once per writer. In a folder
 * known to be empty (see Destination.empty) a file is stored at once, one request instead of two. A project
 * made for the job is deleted whole when the job is taken back
 * (https://developer.osf.io/#operation/nodes_delete); in an existing container what the job stored stays
 * (OSF keeps each file's earlier versions).
 */
export async function openWriter(
  { api, made }: OsfSession,
  containerId: string,
  options: WriterOptions,
): Promise<ResourceWriter> {
  const root = { ...(await destinationOf(api, containerId, made)), empty: options.startsEmpty === true };
  const folders = new Map<string, Promise<Destination>>([['', Promise.resolve(root)]]);
  const folderAt = (segments: readonly string[]): Promise<Destination> => {
    const key = segments.join('/');
    let folder = folders.get(key);
    if (!folder) {
      const making = folderAt(segments.slice(0, -1)).then((parent) =>
        ensureFolder(api, parent, segments[segments.length - 1]),
      );
      making.catch(() => folders.get(key) === making && folders.delete(key));
      folder = making;
      folders.set(key, folder);
    }
    return folder;
  };
  return {
    putFile: async (path, file, duplicate) => {
      checkNames(path);
      const folder = await folderAt(path.slice(0, -1));
      return putFile(api, folder, path[path.length - 1], file, duplicate);
    },
    restage: () => undefined,
    commit: async () => undefined,
    ...(options.newProject ? { abandon: () => api.remove(`nodes/${containerId}/`) } : {}),
  };
}

/**
 * Where writes into a resource go: a project's osfstorage, or the storage or folder itself; refused when the
 * user may not write into its node. A project the session made is not asked for again (OsfSession.made).
 */
async function destinationOf(api: OsfApi, id: string, made: OsfSession['made']): Promise<Destination> {
  const madeNode = made.get(id);
  const located: Located = madeNode ? { kind: 'node', node: madeNode } : await locate(api, id);
  switch (located.kind) {
    case 'node': {
      const { node } = located;
      requireWritable(node);
      const storage = (await storagesOf(api, node)).find((each) => each.attributes.provider === OSF_STORAGE);
      if (!storage) throw new ConnectorError(400, `The project ${id} has no OSF Storage to write into.`);
      return destination(storage, `/${titleSegment(node.attributes.title)}`);
    }
    case 'storage':
      requireWritable(located.node);
      return destination(located.storage, storagePath(located.node, located.storage.attributes.provider));
    case 'file': {
      const { file } = located;
      if (!isFolder(file)) throw ConnectorError.notAContainer(id);
      const node = await nodeOf(api, file);
      requireWritable(node);
      const materialized = (file.attributes.materialized_path ?? `/${file.attributes.name}`).replace(
        /\/$/,
        '',
      );
      return destination(file, `${storagePath(node, file.attributes.provider)}${materialized}`);
    }
  }
}

function storagePath(node: OsfNode, provider: string): string {
  const project = `/${titleSegment(node.attributes.title)}`;
  return provider === OSF_STORAGE ? project : `${project}/${provider}`;
}

function destination(folder: OsfFile, path: string, empty = false): Destination {
  return {
    filesUrl: related(folder, 'files'),
    uploadUrl: link(folder, 'upload'),
    newFolderUrl: link(folder, 'new_folder'),
    path,
    empty,
  };
}

function checkNames(path: readonly string[]): void {
  checkPathNames(path, pathSegmentProblem, 'OSF');
}

/** The entry of a folder with this name and kind, if there is one (OSF filters by substring; pages followed). */
async function findEntry(api: OsfApi, folder: Destination, name: string, kind: 'file' | 'folder') {
  const query = { 'filter[name]': name, 'filter[kind]': kind };
  for await (const entry of api.all<OsfFile>(folder.filesUrl, query)) {
    if (entry.attributes.name === name && entry.attributes.kind === kind) return entry;
  }
  return undefined;
}

/**
 * The subfolder with this name, made when missing (WaterButler answers 409 when it exists already); in an
 * empty parent it is made without looking for it first. Its links are those OSF lists it with.
 */
async function ensureFolder(api: OsfApi, parent: Destination, name: string): Promise<Destination> {
  const path = `${parent.path}/${name}`;
  const existing = parent.empty ? undefined : await findEntry(api, parent, name, 'folder');
  if (existing) return destination(existing, path);
  const empty = await api.files.makeFolder(parent.newFolderUrl, name);
  const made = await findEntry(api, parent, name, 'folder');
  if (!made) throw new ConnectorError(502, `OSF does not list the folder '${name}' it made.`);
  return destination(made, path, empty);
}

/**
 * Stores one file in a folder: a new file by the folder's upload link; an existing one left alone (`ignore`,
 * without reading the incoming bytes) or given a new version by its own upload link when its content differs
 * from what OSF's checksums say it holds (`update`).
 */
async function putFile(
  api: OsfApi,
  folder: Destination,
  name: string,
  file: IncomingFile,
  duplicate: DuplicateAction,
): Promise<PutFileResult> {
  const path = `${folder.path}/${name}`;
  const created = async (stored: StoredFile): Promise<PutFileResult> => ({
    outcome: 'created',
    id: await storedId(api, folder, stored),
    path,
    hashes: knownHashes(stored),
  });
  // in an empty folder only a name this writer put already can be there (409): then as in any folder
  const storedAtOnce = folder.empty ? await api.files.uploadNew(folder.uploadUrl, name, file) : null;
  if (storedAtOnce) return created(storedAtOnce);
  const existing = await findEntry(api, folder, name, 'file');
  if (!existing) return created(await api.files.upload(folder.uploadUrl, { kind: 'file', name }, file));
  if (duplicate === 'ignore' || (await holdsSameContent(existing, file)))
    return { outcome: 'ignored', id: existing.id, path, hashes: knownHashes(existing) };
  const stored = await api.files.upload(fileUrl(existing), { kind: 'file' }, file);
  return { outcome: 'updated', id: existing.id, path, hashes: knownHashes(stored) };
}

/**
 * The OSF id of a file WaterButler just made: in osfstorage, WaterButler's path of a file is `/<its OSF id>`;
 * other providers' paths are their own, and OSF names the file when it lists it.
 */
async function storedId(api: OsfApi, folder: Destination, stored: StoredFile): Promise<string> {
  if (stored.attributes.provider === OSF_STORAGE) return stored.attributes.path.replace(/^\//, '');
  const listed = await findEntry(api, folder, stored.attributes.name, 'file');
  if (!listed)
    throw new ConnectorError(502, `OSF does not list the file '${stored.attributes.name}' it stored.`);
  return listed.id;
}

/**
 * Whether the incoming bytes are those OSF holds, by the strongest checksum OSF keeps of the file (read once
 * from the incoming file). Without a checksum nothing can be compared, and the file is replaced.
 */
async function holdsSameContent(existing: OsfFile, file: IncomingFile): Promise<boolean> {
  const kept = knownHashes(existing);
  const algorithm = kept.sha256 ? 'sha256' : kept.md5 ? 'md5' : null;
  if (algorithm === null) return false;
  return (await incomingDigest(file, algorithm)) === kept[algorithm];
}
