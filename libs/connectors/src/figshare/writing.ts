import type {
  DuplicateAction,
  IncomingFile,
  PutFileResult,
  ResourceSummary,
  ResourceWriter,
  WriterOptions,
} from '../connector';
import { CreatedFiles } from '../created-files';
import { ConnectorError } from '../connector-error';
import { incomingDigest } from '../incoming-digest';
import { titleSegment } from '../upstream-values';
import { flatFileName } from '../zipped-folders';
import type { FigshareApi } from './api';
import { md5Of, type Article, type ArticleFile, type Project } from './entities';
import { fileResourceId, parseId } from './ids';
import { projectSummary } from './detail';
import { MAX_PAGE_SIZE } from './options';
import { ownProject } from './published';
import { ownArticle } from './project-articles';
import { uploadFile } from './multipart-upload';
import type { FigshareSession } from './session';

/** What the service writes as the description of the projects it makes. */
const DESCRIPTION = 'Deposited through PresQT.';

/** Every title of the user's projects, page after page. */
async function projectTitles(api: FigshareApi): Promise<Set<string>> {
  const titles = new Set<string>();
  for (let page = 1; ; page++) {
    const projects = await api.projects({ page, pageSize: MAX_PAGE_SIZE });
    for (const project of projects) titles.add(project.title);
    if (projects.length < MAX_PAGE_SIZE) return titles;
  }
}

/** A new project titled `title`, or `title (2)`, `title (3)`, ... when the user has that title already. */
export async function createProject({ api }: FigshareSession, title: string): Promise<ResourceSummary> {
  const wanted = title.trim();
  if (wanted === '') throw new ConnectorError(400, 'A FigShare project needs a title.');
  const taken = await projectTitles(api);
  let unique = wanted;
  for (let n = 2; taken.has(unique); n++) unique = `${wanted} (${n})`;
  const id = await api.createProject(unique, DESCRIPTION);
  return projectSummary({ id, title: unique });
}

/** Files going into one article, each stored as it is put (nothing waits for the commit). */
class ArticleWriter implements ResourceWriter {
  private readonly files: Map<string, ArticleFile>;
  private readonly created = new CreatedFiles<number>();

  constructor(
    private readonly api: FigshareApi,
    private readonly projectId: string,
    private readonly article: Article,
    files: ArticleFile[],
    /** where the article's files appear, from the top of the target */
    private readonly folder: string,
    /** the project was made for the job */
    private readonly newProject: boolean,
  ) {
    this.files = new Map(files.map((file) => [file.name, file]));
  }

  async putFile(
    path: readonly string[],
    file: IncomingFile,
    duplicate: DuplicateAction,
  ): Promise<PutFileResult> {
    const name = flatFileName(path, 'FigShare', 'an article');
    const existing = this.files.get(name);
    if (existing && duplicate === 'ignore') return this.result('ignored', existing);
    const md5 = await incomingDigest(file, 'md5');
    if (existing && md5Of(existing) === md5) return this.result('ignored', existing);
    const uploaded = await uploadFile(this.api, this.article.id, name, file, md5);
    // the file it replaces goes only once the new one is complete, so a failure loses neither
    if (existing) await this.api.deleteFile(this.article.id, existing.id);
    const stored = await this.api.file(
      this.projectId,
      String(this.article.id),
      String(uploaded.id),
      this.resourceId,
    );
    this.files.set(name, stored);
    if (existing) return this.result('updated', stored);
    return { ...this.result('created', stored), staged: this.created.add(stored.id) };
  }

  /** Every file was stored when it was put: what earlier runs staged are only the files they created. */
  restage(staged: readonly unknown[]): void {
    this.created.restage(staged);
  }

  /**
   * A project made for the job goes with its article (deleting a project alone leaves its articles); in an
   * existing one, the files the job created go. A file the job replaced keeps its new content: the old one
   * was deleted once the new one was complete.
   */
  async abandon(): Promise<void> {
    if (this.newProject) {
      await this.api.deleteArticle(this.article.id);
      await this.api.deleteProject(this.projectId);
    } else await this.created.removeAll((fileId) => this.api.deleteFile(this.article.id, fileId));
  }

  /** Nothing is left to do: FigShare shows a file once its upload is complete. */
  async commit(): Promise<void> {}

  private get resourceId(): string {
    return `${this.projectId}:${this.article.id}`;
  }

  private result(outcome: PutFileResult['outcome'], file: ArticleFile): PutFileResult {
    const md5 = md5Of(file);
    return {
      outcome,
      id: fileResourceId(this.projectId, this.article.id, file.id),
      path: `/${this.folder}/${file.name}`,
      hashes: md5 === null ? {} : { md5 },
    };
  }
}

/** The article files put into `containerId` go to: a project's own article (made if need be), or an article. */
async function destination(
  api: FigshareApi,
  containerId: string,
): Promise<{ project: Project; article: Article; folder: string }> {
  const parsed = parseId(containerId);
  if (!parsed) throw ConnectorError.unknownResource(containerId);
  if (parsed.kind === 'file') throw ConnectorError.notAContainer(containerId);
  const project = await ownProject(api, parsed.project, containerId);
  const projectFolder = titleSegment(project.title);
  if (parsed.kind === 'project')
    return { project, article: await ownArticle(api, project, containerId), folder: projectFolder };
  const article = await api.article(parsed.project, parsed.article, containerId);
  return { project, article, folder: `${projectFolder}/${titleSegment(article.title)}` };
}

export async function openWriter(
  { api }: FigshareSession,
  containerId: string,
  options: WriterOptions,
): Promise<ResourceWriter> {
  const { project, article, folder } = await destination(api, containerId);
  const projectId = String(project.id);
  const files = await api.files(projectId, article.id, containerId);
  return new ArticleWriter(api, projectId, article, files, folder, options.newProject);
}
