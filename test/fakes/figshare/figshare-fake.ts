import { FakeServer } from '../fake-server';
import { caller, fail, type AccountHandler, type FigshareContext } from './api';
import { articleRoutes } from './article-routes';
import { downloadRoutes, uploadRoutes } from './file-hosts';
import { DEFINED_TYPES, FigshareState, type StoredArticle, type StoredProject } from './model';
import { projectRoutes } from './project-routes';
import { publicRoutes } from './public-routes';

export type { StoredArticle, StoredFile, StoredProject } from './model';

export interface SeededArticle {
  title: string;
  files?: Record<string, string | Buffer>;
  tags?: string[];
  /** an item type, `dataset` unless given */
  definedType?: string;
}

export interface SeededProject {
  title: string;
  description?: string;
  articles?: SeededArticle[];
  /** whether the project is published, with its articles */
  published?: boolean;
}

/** The upload service's part size unless a test sets another. */
const DEFAULT_PART_SIZE = 1024 * 1024;

/**
 * A fake FigShare (API v2, https://docs.figshare.com/) on 127.0.0.1: the API below `/v2`, the upload service
 * files are sent to in parts, and the file host they download from, each on a port of its own as they are
 * three hosts (api.figshare.com, uploads.figshare.com, ndownloader.figshare.com). Tests seed users and
 * projects and read back what was written.
 */
export class FigshareFake {
  readonly server = new FakeServer('FigShare API', '/v2');
  readonly uploads = new FakeServer('FigShare uploads');
  readonly downloads = new FakeServer('FigShare downloads');
  /** the size of the parts the upload service cuts a new file in */
  partSize = DEFAULT_PART_SIZE;
  private readonly state = new FigshareState();

  async start(): Promise<this> {
    await Promise.all([this.server.start(), this.uploads.start(), this.downloads.start()]);
    const context: FigshareContext = {
      state: this.state,
      origins: () => ({
        api: this.server.url,
        uploads: this.uploads.origin,
        downloads: this.downloads.origin,
      }),
      partSize: () => this.partSize,
    };
    // every route of the API is below /account, for the user of a valid token only: FigShare answers 403
    // otherwise (https://docs.figshare.com/#private_account)
    const route = (method: string, template: string, handler: AccountHandler) =>
      this.server.route(method, template, (request, answer) => {
        const user = caller(context, request);
        if (!user) {
          request.raw.resume();
          return fail(answer, 403, 'Invalid or expired token');
        }
        return handler(request, answer, user);
      });
    projectRoutes(route, context);
    articleRoutes(route, context);
    // the public endpoints answer anyone, with a token or without (https://docs.figshare.com/#public_article)
    publicRoutes((method, template, handler) => this.server.route(method, template, handler), context);
    uploadRoutes(this.uploads, this.state);
    downloadRoutes(this.downloads, this.state);
    return this;
  }

  async stop(): Promise<void> {
    await Promise.all([this.server.stop(), this.uploads.stop(), this.downloads.stop()]);
  }

  /** Forgets users, projects, faults and recorded requests; the part size is the default again. */
  reset(): void {
    this.state.clear();
    this.partSize = DEFAULT_PART_SIZE;
    for (const server of [this.server, this.uploads, this.downloads]) {
      server.clearFaults();
      server.requests.length = 0;
      server.answers.length = 0;
    }
  }

  /** A user FigShare knows by `token`; their account id. */
  addUser(token: string, profile: { email?: string; firstName?: string; lastName?: string } = {}): number {
    return this.state.addUser(token, profile).id;
  }

  /** A project of `owner`, modified after everything before it, with its articles and their (available) files. */
  seedProject(owner: number, seeded: SeededProject): StoredProject {
    const project = this.state.createProject(owner, { title: seeded.title, description: seeded.description });
    for (const article of seeded.articles ?? []) {
      if (article.definedType !== undefined && !(article.definedType in DEFINED_TYPES))
        throw new Error(`FigShare has no item type '${article.definedType}'`);
      const stored = this.state.createArticle(project, {
        title: article.title,
        tags: article.tags,
        definedTypeName: article.definedType,
      });
      for (const [name, content] of Object.entries(article.files ?? {}))
        this.state.addAvailableFile(stored, name, Buffer.from(content));
    }
    if (seeded.published) this.state.publish(project);
    return project;
  }

  /** The projects of `owner`, oldest first. */
  projectsOf(owner: number): StoredProject[] {
    return [...this.state.projects.values()].filter((project) => project.owner === owner);
  }

  project(id: number): StoredProject | undefined {
    return this.state.projects.get(id);
  }

  article(id: number): StoredArticle | undefined {
    return this.state.articles.get(id);
  }
}
