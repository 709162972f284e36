/**
 * Resource ids at FigShare: a project is `<project>`, an article in it `<project>:<article>`, a file of that
 * article `<project>:<article>:<file>`, each part FigShare's own integer id. The project in every id lets the
 * connector reach an article and its files through the project's endpoints, which check that they belong to
 * it. No id can hold a dot, a slash or a percent sign.
 */

export type ParsedId =
  | { kind: 'project'; project: string }
  | { kind: 'article'; project: string; article: string }
  | { kind: 'file'; project: string; article: string; file: string };

/** FigShare's ids are positive 64-bit integers (https://docs.figshare.com/: `format: int64, minimum: 1`). */
const INTEGER_ID = /^[1-9][0-9]{0,18}$/;

/** What an id names, or null when no FigShare resource can have it. */
export function parseId(id: string): ParsedId | null {
  const parts = id.split(':');
  if (parts.length > 3 || !parts.every((part) => INTEGER_ID.test(part))) return null;
  const [project, article, file] = parts;
  if (file !== undefined) return { kind: 'file', project, article, file };
  if (article !== undefined) return { kind: 'article', project, article };
  return { kind: 'project', project };
}

export function articleResourceId(projectId: number | string, articleId: number | string): string {
  return `${projectId}:${articleId}`;
}

export function fileResourceId(
  projectId: number | string,
  articleId: number | string,
  fileId: number | string,
): string {
  return `${projectId}:${articleId}:${fileId}`;
}
