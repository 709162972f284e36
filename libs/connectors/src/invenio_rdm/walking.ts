import type { RemoteFile, RemoteFolder } from '../connector';
import { ConnectorError } from '../connector-error';
import { titleSegment } from '../upstream-values';
import { linkOf, type InvenioApi } from './api';
import { byKey, md5Of, recordTitle, type FileEntry } from './entities';
import { committedFiles, recordFile } from './detail';
import { parseId } from './ids';
import { readRecord } from './records';
import type { InvenioSession } from './session';

function remoteFile(api: InvenioApi, path: string, file: FileEntry): RemoteFile {
  return {
    kind: 'file',
    path,
    size: Number(file.size ?? 0),
    sourceHashes: async (wanted): Promise<Record<string, string>> => {
      const md5 = md5Of(file.checksum);
      return md5 !== null && wanted.includes('md5') ? { md5 } : {};
    },
    open: () => api.download(linkOf(file.links, 'content', `file '${file.key}'`)),
  };
}

/** A record (a folder) and then its committed files by key, or a single file; InvenioRDM keeps no folders below. */
export async function* walk(session: InvenioSession, id: string): AsyncGenerator<RemoteFolder | RemoteFile> {
  const { api } = session;
  const parsed = parseId(id);
  if (!parsed) throw ConnectorError.unknownResource(id);
  if (parsed.kind === 'file') {
    const { file } = await recordFile(session, parsed.record, parsed.key, id);
    yield remoteFile(api, titleSegment(file.key), file);
    return;
  }
  const { record } = await readRecord(api, parsed.record, id);
  const folder = titleSegment(recordTitle(record));
  yield { kind: 'folder', path: folder };
  const files = await committedFiles(api, record);
  files.sort(byKey);
  for (const file of files) yield remoteFile(api, `${folder}/${titleSegment(file.key)}`, file);
}
