import type { RemoteFile, RemoteFolder } from '../connector';
import { ConnectorError } from '../connector-error';
import { byName, titleSegment } from '../upstream-values';
import type { FigshareApi } from './api';
import { md5Of, type Article, type ArticleFile } from './entities';
import { parseId } from './ids';
import { projectArticles } from './project-articles';
import { readProject, type ProjectReader } from './published';
import type { FigshareSession } from './session';

function remoteFile(api: FigshareApi, path: string, file: ArticleFile): RemoteFile {
  return {
    kind: 'file',
    path,
    size: Number(file.size),
    sourceHashes: async (wanted): Promise<Record<string, string>> => {
      const md5 = md5Of(file);
      return md5 !== null && wanted.includes('md5') ? { md5 } : {};
    },
    open: async () => {
      if (!file.download_url)
        throw new ConnectorError(502, `FigShare gave no download link for the file '${file.name}'.`);
      return api.download(file.download_url);
    },
  };
}

/** An article's files by name, below `folder`. */
async function* articleFiles(
  api: FigshareApi,
  reader: ProjectReader,
  projectId: string,
  article: Article,
  folder: string,
  resourceId: string,
): AsyncGenerator<RemoteFile> {
  const files = await reader.files(projectId, article.id, resourceId);
  files.sort((a, b) => byName(a.name, b.name));
  for (const file of files) yield remoteFile(api, `${folder}/${titleSegment(file.name)}`, file);
}

/** A project: its own article's files directly in it, then each other article as a folder. */
async function* projectEntries(
  api: FigshareApi,
  projectId: string,
  id: string,
): AsyncGenerator<RemoteFolder | RemoteFile> {
  const { project, reader } = await readProject(api, projectId, id);
  const folder = titleSegment(project.title);
  yield { kind: 'folder', path: folder };
  const { own, others } = await projectArticles(reader, project, id);
  if (own) yield* articleFiles(api, reader, projectId, own, folder, id);
  for (const article of others) {
    const articleFolder = `${folder}/${titleSegment(article.title)}`;
    yield { kind: 'folder', path: articleFolder };
    yield* articleFiles(api, reader, projectId, article, articleFolder, id);
  }
}

/** A project, an article (a folder of files) or a single file; FigShare keeps no folders below an article. */
export async function* walk({ api }: FigshareSession, id: string): AsyncGenerator<RemoteFolder | RemoteFile> {
  const parsed = parseId(id);
  if (!parsed) throw ConnectorError.unknownResource(id);
  switch (parsed.kind) {
    case 'project':
      yield* projectEntries(api, parsed.project, id);
      return;
    case 'article': {
      const { reader } = await readProject(api, parsed.project, id);
      const article = await reader.article(parsed.project, parsed.article, id);
      const folder = titleSegment(article.title);
      yield { kind: 'folder', path: folder };
      yield* articleFiles(api, reader, parsed.project, article, folder, id);
      return;
    }
    case 'file': {
      const { reader } = await readProject(api, parsed.project, id);
      const file = await reader.file(parsed.project, parsed.article, parsed.file, id);
      yield remoteFile(api, titleSegment(file.name), file);
    }
  }
}
