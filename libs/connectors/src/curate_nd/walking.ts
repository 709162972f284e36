import type { RemoteFile, RemoteFolder } from '../connector';
import { ConnectorError } from '../connector-error';
import type { CurateNdApi } from './api';
import { readCharacterization } from './characterization';
import { byName, safeName, uniqueName } from './names';
import { containedFiles, fileTitle, recordKind, titleOf, type CurateNdRecord } from './entities';
import type { CurateNdSession } from './session';

/**
 * A work, then its files by name (a work holds files and no folders); a file alone. Bytes come from each
 * file's `downloadUrl`; its md5 and size from its characterization, the size otherwise from the download's
 * announced length.
 */
export async function* walk({ api }: CurateNdSession, id: string): AsyncGenerator<RemoteFolder | RemoteFile> {
  const record = await api.record(id);
  switch (recordKind(record)) {
    case 'file':
      yield await remoteFile(api, record, safeName(fileTitle(record), record.id));
      return;
    case 'item':
      break;
    default:
      throw ConnectorError.unknownResource(id);
  }
  const folder = safeName(titleOf(record), record.id);
  yield { kind: 'folder', path: folder };
  const files = containedFiles(record)
    .map((file) => ({ file, name: safeName(fileTitle(file), file.id) }))
    .sort((a, b) => byName(a.name, b.name));
  const taken = new Set<string>();
  for (const { file, name } of files)
    yield await remoteFile(api, file, `${folder}/${uniqueName(name, taken)}`);
}

async function remoteFile(api: CurateNdApi, file: CurateNdRecord, path: string): Promise<RemoteFile> {
  const downloadUrl = file.downloadUrl;
  if (typeof downloadUrl !== 'string')
    throw new ConnectorError(502, `CurateND gave no download link for the file ${file.id}.`);
  const { md5, size } = readCharacterization(file.characterization);
  const length = size ?? (await api.downloadLength(downloadUrl, file.id));
  if (length === null)
    throw new ConnectorError(502, `CurateND did not tell the size of the file ${file.id}.`);
  return {
    kind: 'file',
    path,
    size: length,
    sourceHashes: async (wanted): Promise<Record<string, string>> =>
      md5 !== null && wanted.includes('md5') ? { md5 } : {},
    open: () => api.download(downloadUrl, file.id),
  };
}
