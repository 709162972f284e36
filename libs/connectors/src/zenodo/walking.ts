import type { RemoteFile, RemoteFolder } from '../connector';
import { ConnectorError } from '../connector-error';
import type { ZenodoApi } from './api';
import { titleSegment } from '../upstream-values';
import { byFilename, depositionTitle, md5Of, type DepositionFile } from './entities';
import { parseId } from './ids';
import { readDeposition, readFile } from './published';
import type { ZenodoSession } from './session';

function remoteFile(api: ZenodoApi, path: string, file: DepositionFile): RemoteFile {
  return {
    kind: 'file',
    path,
    size: Number(file.filesize),
    sourceHashes: async (wanted): Promise<Record<string, string>> => {
      const md5 = md5Of(file.checksum);
      return md5 !== null && wanted.includes('md5') ? { md5 } : {};
    },
    open: async () => {
      const link = file.links?.download;
      if (!link)
        throw new ConnectorError(502, `Zenodo gave no download link for the file '${file.filename}'.`);
      return api.download(link);
    },
  };
}

/** A deposition (a folder) and then its files by name, or a single file; Zenodo keeps no folders below. */
export async function* walk({ api }: ZenodoSession, id: string): AsyncGenerator<RemoteFolder | RemoteFile> {
  const parsed = parseId(id);
  if (!parsed) throw ConnectorError.unknownResource(id);
  if (parsed.kind === 'file') {
    const file = await readFile(api, parsed.deposition, parsed.file, id);
    yield remoteFile(api, titleSegment(file.filename), file);
    return;
  }
  const { deposition, own } = await readDeposition(api, parsed.deposition, id);
  const folder = titleSegment(depositionTitle(deposition));
  yield { kind: 'folder', path: folder };
  // a record's files come with it; a deposition's are listed with their download links
  const files = own ? await api.files(deposition.id, id) : [...(deposition.files ?? [])];
  files.sort(byFilename);
  for (const file of files) yield remoteFile(api, `${folder}/${titleSegment(file.filename)}`, file);
}
