import type { ResourceDetail, ResourceSummary } from '../connector';
import { ConnectorError } from '../connector-error';
import { byName, isoDate } from '../upstream-values';
import type { FigshareApi } from './api';
import { articleKind, md5Of, modifiedDate, type Article, type ArticleFile, type Project } from './entities';
import { articleResourceId, fileResourceId, parseId } from './ids';
import { projectArticles } from './project-articles';
import { notTheUsers, readProject } from './published';
import type { FigshareSession } from './session';

/** Fields shown as a resource's title, id and dates, which `extra` need not repeat. */
const SHOWN = new Set(['id', 'title', 'created_date', 'modified_date', 'files']);
const NO_HASHES = { md5: null, sha256: null };

/** A project's or an article's dates; one without a modification date shows its creation date. */
function datesOf(entity: {
  created_date?: string;
  modified_date?: string | null;
}): Pick<ResourceDetail, 'dateCreated' | 'dateModified'> {
  const modified = modifiedDate(entity);
  return { dateCreated: isoDate(entity.created_date ?? modified), dateModified: isoDate(modified) };
}

function extraOf(entity: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entity).filter(([field]) => !SHOWN.has(field)));
}

export function projectSummary(project: Pick<Project, 'id' | 'title'>): ResourceSummary {
  return {
    kind: 'container',
    kindName: 'project',
    id: String(project.id),
    container: null,
    title: project.title,
  };
}

/** The summary of a file of `article`, shown in `containerId` (the project for its own article's files). */
export function fileSummary(
  projectId: string,
  article: Article,
  file: ArticleFile,
  containerId: string,
): ResourceSummary {
  return {
    kind: 'item',
    kindName: 'file',
    id: fileResourceId(projectId, article.id, file.id),
    container: containerId,
    title: file.name,
  };
}

export function articleSummary(projectId: string, article: Article): ResourceSummary {
  return {
    kind: 'container',
    kindName: articleKind(article),
    id: articleResourceId(projectId, article.id),
    container: projectId,
    title: article.title,
  };
}

function byFileName(a: ArticleFile, b: ArticleFile): number {
  return byName(a.name, b.name);
}

async function projectDetail(api: FigshareApi, projectId: string, id: string): Promise<ResourceDetail> {
  const readable = await readProject(api, projectId, id);
  const { project, reader } = readable;
  const { own, others } = await projectArticles(reader, project, id);
  const ownFiles = own ? (await reader.files(projectId, own.id, id)).sort(byFileName) : [];
  return {
    kind: 'container',
    kindName: 'project',
    id,
    title: project.title,
    ...datesOf(project),
    hashes: NO_HASHES,
    extra: extraOf(project),
    children: [
      ...ownFiles.map((file) => fileSummary(projectId, own!, file, id)),
      ...others.map((article) => articleSummary(projectId, article)),
    ],
    readOnly: readable.own ? undefined : notTheUsers(projectId),
  };
}

async function articleDetail(api: FigshareApi, projectId: string, articleId: string, id: string) {
  const { reader, own } = await readProject(api, projectId, id);
  const [article, files] = await Promise.all([
    reader.article(projectId, articleId, id),
    reader.files(projectId, articleId, id),
  ]);
  return {
    kind: 'container' as const,
    kindName: articleKind(article),
    id,
    title: article.title,
    ...datesOf(article),
    hashes: NO_HASHES,
    extra: extraOf(article),
    children: files.sort(byFileName).map((file) => fileSummary(projectId, article, file, id)),
    readOnly: own ? undefined : notTheUsers(projectId),
  };
}

/** A file has no dates of its own at FigShare: it shows its article's. */
async function fileDetail(
  api: FigshareApi,
  parsed: { project: string; article: string; file: string },
  id: string,
): Promise<ResourceDetail> {
  const { reader } = await readProject(api, parsed.project, id);
  const [article, file] = await Promise.all([
    reader.article(parsed.project, parsed.article, id),
    reader.file(parsed.project, parsed.article, parsed.file, id),
  ]);
  return {
    kind: 'item',
    kindName: 'file',
    id,
    title: file.name,
    ...datesOf(article),
    hashes: { md5: md5Of(file), sha256: null },
    extra: { size: Number(file.size), article: articleResourceId(parsed.project, parsed.article) },
    children: [],
  };
}

export async function getResource({ api }: FigshareSession, id: string): Promise<ResourceDetail> {
  const parsed = parseId(id);
  if (!parsed) throw ConnectorError.unknownResource(id);
  switch (parsed.kind) {
    case 'project':
      return projectDetail(api, parsed.project, id);
    case 'article':
      return articleDetail(api, parsed.project, parsed.article, id);
    case 'file':
      return fileDetail(api, parsed, id);
  }
}
