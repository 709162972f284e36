import type {
  CollectionPage,
  CollectionQuery,
  ConnectorSession,
  RemoteFile,
  RemoteFolder,
  ResourceDetail,
  ResourceSummary,
  ResourceWriter,
  WalkOptions,
  WriterOptions,
} from './connector';

/** A connector's session operations written as functions of what its parts share (`context`). */
export interface SessionOperations<Context> {
  listResources(context: Context, query: CollectionQuery): Promise<CollectionPage>;
  getResource(context: Context, id: string): Promise<ResourceDetail>;
  walk(context: Context, id: string, options?: WalkOptions): AsyncIterable<RemoteFolder | RemoteFile>;
  createProject(context: Context, title: string): Promise<ResourceSummary>;
  openWriter(context: Context, containerId: string, options: WriterOptions): Promise<ResourceWriter>;
  keywords(context: Context, id: string): Promise<string[]>;
  setKeywords(context: Context, id: string, keywords: readonly string[]): Promise<string[]>;
}

/** The session of one user: each operation given the session's `context`. */
export function bindSession<Context>(
  username: string,
  context: Context,
  operations: SessionOperations<Context>,
): ConnectorSession {
  return {
    username,
    listResources: (query) => operations.listResources(context, query),
    getResource: (id) => operations.getResource(context, id),
    walk: (id, options) => operations.walk(context, id, options),
    createProject: (title) => operations.createProject(context, title),
    openWriter: (containerId, options) => operations.openWriter(context, containerId, options),
    keywords: (id) => operations.keywords(context, id),
    setKeywords: (id, keywords) => operations.setKeywords(context, id, keywords),
  };
}
