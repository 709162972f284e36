/**
 * The JSON FigShare's API v2 answers with, as far as the connector reads it (the schemas of
 * https://docs.figshare.com/ and its OpenAPI description), and the small readings of it that several parts of
 * the connector share.
 */

/** https://docs.figshare.com/#private_account */
export interface Account {
  id: number;
  email?: string;
  first_name?: string;
  last_name?: string;
}

/** A project as listed (ProjectPrivate) and in full (ProjectCompletePrivate). */
export interface Project {
  id: number;
  title: string;
  url?: string;
  published_date?: string | null;
  created_date?: string;
  modified_date?: string;
  description?: string;
  figshare_url?: string | null;
  funding?: string;
  collaborators?: unknown[];
  custom_fields?: unknown[];
}

/** An article as listed (Article) and in full (ProjectArticle, ArticleCompletePrivate). */
export interface Article {
  id: number;
  title: string;
  defined_type_name?: string;
  doi?: string;
  published_date?: string | null;
  created_date?: string;
  modified_date?: string | null;
  description?: string;
  tags?: string[];
  [field: string]: unknown;
}

/** A file of an article (PrivateFile). */
export interface ArticleFile {
  id: number;
  name: string;
  size: number;
  /** the md5 FigShare computed of what it stored; "" until it has */
  computed_md5?: string;
  supplied_md5?: string;
  download_url?: string;
  upload_url?: string;
  /** `created` while its parts are being sent, `available` once complete */
  status?: string | null;
}

/** What a create answers (CreateProjectResponse, LocationWarnings). */
export interface Created {
  entity_id?: number;
  location: string;
}

/** An upload as the upload service describes it (https://docs.figshare.com/old_docs/api/file_uploader/). */
export interface Upload {
  token: string;
  status: string;
  parts: UploadPart[];
}

export interface UploadPart {
  partNo: number;
  /** zero-based and inclusive */
  startOffset: number;
  endOffset: number;
  status: string;
}

/** The md5 FigShare keeps of a file, lower-case; null before it has computed one. */
export function md5Of(file: ArticleFile): string | null {
  const md5 = file.computed_md5?.toLowerCase() ?? '';
  return /^[0-9a-f]{32}$/.test(md5) ? md5 : null;
}

/** FigShare's kind of article (dataset, figure, ...). */
export function articleKind(article: Article): string {
  return article.defined_type_name || 'article';
}

/** An article's modification date: FigShare lists none for some, which then show their creation date. */
export function modifiedDate(entity: { created_date?: string; modified_date?: string | null }): string {
  return entity.modified_date ?? entity.created_date ?? new Date(0).toISOString();
}

/** How a user is named: the account's e-mail address, which is what FigShare signs people in with. */
export function userName(account: Account): string {
  const name = [account.first_name, account.last_name].filter(Boolean).join(' ');
  return account.email || name || `FigShare user ${account.id}`;
}
