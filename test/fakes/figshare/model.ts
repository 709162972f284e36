import { createHash, randomUUID } from 'node:crypto';

/**
 * The state of the fake FigShare: accounts, projects, their articles (FigShare's "items"), the articles' files,
 * and the uploads in progress on the upload service (https://docs.figshare.com/old_docs/api/file_uploader/).
 * Timestamps are ISO 8601 with milliseconds, as the OpenAPI description's examples are.
 */

export interface FigshareUser {
  id: number;
  token: string;
  email: string;
  firstName: string;
  lastName: string;
  created: string;
}

export interface StoredFile {
  id: number;
  name: string;
  /** the size announced when the upload was initiated */
  size: number;
  /** the bytes, once the upload is complete (empty until then) */
  content: Buffer;
  /** the md5 the client announced, `''` when it gave none */
  suppliedMd5: string;
  /** the md5 of the bytes received, `''` until the upload is complete */
  computedMd5: string;
  status: 'created' | 'available';
  uploadToken: string;
}

export interface StoredArticle {
  id: number;
  /** null once its project is deleted: an individual project's articles then stay with their owner */
  projectId: number | null;
  owner: number;
  title: string;
  description: string;
  tags: string[];
  definedTypeName: string;
  files: StoredFile[];
  created: string;
  modified: string;
  /** when it was made public (its project was published), null while private */
  published: string | null;
}

export interface StoredProject {
  id: number;
  owner: number;
  title: string;
  description: string;
  funding: string;
  created: string;
  modified: string;
  /** when it was made public, null while private */
  published: string | null;
  /** oldest first */
  articles: StoredArticle[];
}

/** A part of an upload: byte offsets zero-based and inclusive; `received` holds its bytes once sent. */
export interface UploadPart {
  partNo: number;
  startOffset: number;
  endOffset: number;
  received: Buffer | null;
}

export interface StoredUpload {
  token: string;
  file: StoredFile;
  article: StoredArticle;
  status: 'PENDING' | 'COMPLETED';
  parts: UploadPart[];
}

/** The item types an article can be created with, and their numbers (the `defined_type` of an Article). */
export const DEFINED_TYPES: Record<string, number> = {
  figure: 1,
  media: 2,
  dataset: 3,
  poster: 5,
  'journal contribution': 6,
  presentation: 7,
  thesis: 8,
  software: 9,
  'online resource': 11,
  preprint: 12,
  book: 13,
  'conference contribution': 14,
};

const md5 = (content: Buffer): string => createHash('md5').update(content).digest('hex');

export class FigshareState {
  readonly users = new Map<string, FigshareUser>();
  readonly projects = new Map<number, StoredProject>();
  readonly articles = new Map<number, StoredArticle>();
  readonly files = new Map<number, { file: StoredFile; article: StoredArticle }>();
  readonly uploads = new Map<string, StoredUpload>();
  // never reset, so that an id seen in one test means nothing in the next
  private nextUser = 1_000_001;
  private nextProject = 100_000;
  private nextArticle = 20_000_000;
  private nextFile = 40_000_000;
  private lastTick = 0;

  /** Now, later than every time given before (so that each change has a `modified` of its own). */
  tick(): string {
    this.lastTick = Math.max(Date.now(), this.lastTick + 1);
    return new Date(this.lastTick).toISOString();
  }

  addUser(token: string, profile: { email?: string; firstName?: string; lastName?: string }): FigshareUser {
    const id = this.nextUser++;
    const user: FigshareUser = {
      id,
      token,
      email: profile.email ?? `user${id}@example.org`,
      firstName: profile.firstName ?? 'Jane',
      lastName: profile.lastName ?? 'Doe',
      created: this.tick(),
    };
    this.users.set(token, user);
    return user;
  }

  createProject(
    owner: number,
    fields: { title: string; description?: string; funding?: string },
  ): StoredProject {
    const now = this.tick();
    const project: StoredProject = {
      id: this.nextProject++,
      owner,
      title: fields.title,
      description: fields.description ?? '',
      funding: fields.funding ?? '',
      created: now,
      modified: now,
      published: null,
      articles: [],
    };
    this.projects.set(project.id, project);
    return project;
  }

  createArticle(
    project: StoredProject,
    fields: { title: string; description?: string; tags?: string[]; definedTypeName?: string },
  ): StoredArticle {
    const now = this.tick();
    const article: StoredArticle = {
      id: this.nextArticle++,
      projectId: project.id,
      owner: project.owner,
      title: fields.title,
      description: fields.description ?? '',
      tags: fields.tags ?? [],
      definedTypeName: fields.definedTypeName ?? 'dataset',
      files: [],
      created: now,
      modified: now,
      published: null,
    };
    project.articles.push(article);
    project.modified = now;
    this.articles.set(article.id, article);
    return article;
  }

  /** A file whose upload has begun, cut in parts of `partSize` bytes. */
  createFile(article: StoredArticle, name: string, size: number, suppliedMd5: string, partSize: number) {
    const file = this.addFile(article, { name, size, content: Buffer.alloc(0), suppliedMd5 });
    const parts: UploadPart[] = [];
    for (let start = 0; start < size; start += partSize)
      parts.push({
        partNo: parts.length + 1,
        startOffset: start,
        endOffset: Math.min(start + partSize, size) - 1,
        received: null,
      });
    this.uploads.set(file.uploadToken, { token: file.uploadToken, file, article, status: 'PENDING', parts });
    return file;
  }

  /** A file already uploaded, as a seeded one is. */
  addAvailableFile(article: StoredArticle, name: string, content: Buffer): StoredFile {
    const file = this.addFile(article, { name, size: content.length, content, suppliedMd5: md5(content) });
    file.status = 'available';
    file.computedMd5 = file.suppliedMd5;
    return file;
  }

  /** Assembles an upload whose every part was received: the file becomes available. */
  complete(upload: StoredUpload): void {
    const content = Buffer.concat(upload.parts.map((part) => part.received ?? Buffer.alloc(0)));
    Object.assign(upload.file, { content, computedMd5: md5(content), status: 'available' });
    upload.status = 'COMPLETED';
    this.touch(upload.article);
  }

  deleteFile(article: StoredArticle, file: StoredFile): void {
    article.files = article.files.filter((candidate) => candidate !== file);
    this.files.delete(file.id);
    this.uploads.delete(file.uploadToken);
    this.touch(article);
  }

  /** Deletes an article with its files, from its project too. */
  deleteArticle(article: StoredArticle): void {
    for (const file of [...article.files]) this.deleteFile(article, file);
    this.articles.delete(article.id);
    const project = article.projectId === null ? undefined : this.projects.get(article.projectId);
    if (project) project.articles = project.articles.filter((candidate) => candidate !== article);
  }

  /** Deletes an individual project; its articles stay, outside any project. */
  deleteProject(project: StoredProject): void {
    for (const article of project.articles) article.projectId = null;
    this.projects.delete(project.id);
  }

  /**
   * Makes a project public with its articles, as publishing a project does
   * (https://docs.figshare.com/#private_project_publish: "all the articles in the project are published").
   */
  publish(project: StoredProject): void {
    const now = this.tick();
    project.published = now;
    for (const article of project.articles) article.published = now;
  }

  /** Marks a change of an article, and so of its project. */
  touch(article: StoredArticle): void {
    article.modified = this.tick();
    const project = article.projectId === null ? undefined : this.projects.get(article.projectId);
    if (project) project.modified = article.modified;
  }

  clear(): void {
    for (const map of [this.users, this.projects, this.articles, this.files, this.uploads]) map.clear();
  }

  private addFile(
    article: StoredArticle,
    fields: Pick<StoredFile, 'name' | 'size' | 'content' | 'suppliedMd5'>,
  ): StoredFile {
    const file: StoredFile = {
      id: this.nextFile++,
      ...fields,
      computedMd5: '',
      status: 'created',
      uploadToken: randomUUID(),
    };
    article.files.push(file);
    this.files.set(file.id, { file, article });
    this.touch(article);
    return file;
  }
}
