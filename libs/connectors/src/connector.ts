/**
 * The contract every repository connector implements. A connector serves one target entry of the targets
 * file; `open` checks a user's token once and returns a session scoped to that user.
 */

export type ResourceKind = 'container' | 'item';

export const SEARCH_FILTERS = ['general', 'title', 'id', 'author', 'keywords'] as const;
export type SearchFilter = (typeof SEARCH_FILTERS)[number];

export const HASH_ALGORITHMS = ['md5', 'sha256'] as const;
export type HashAlgorithm = (typeof HASH_ALGORITHMS)[number];

export interface ResourceSummary {
  kind: ResourceKind;
  kindName: string;
  id: string;
  /** id of the containing resource; null for a top-level resource */
  container: string | null;
  title: string;
}

export interface ResourceDetail {
  kind: ResourceKind;
  kindName: string;
  id: string;
  title: string;
  /** ISO 8601 UTC */
  dateCreated: string;
  /** ISO 8601 UTC */
  dateModified: string;
  hashes: Record<HashAlgorithm, string | null>;
  extra: Record<string, unknown>;
  children: ResourceSummary[];
}

export interface CollectionQuery {
  /** at most one search filter; absent means the user's own top-level resources */
  search?: { filter: SearchFilter; value: string };
  /** 1-based */
  page: number;
}

export interface CollectionPage {
  resources: ResourceSummary[];
  /** number of matching resources over all pages */
  total: number;
  /** the page size the target uses */
  perPage: number;
}

export interface TargetStatus {
  ok: boolean;
  detail: string;
}

export interface ConnectorSession {
  /** the user name at the target behind the token */
  readonly username: string;
  listResources(query: CollectionQuery): Promise<CollectionPage>;
  /** throws ConnectorError 404 (unknown for this user), 403 (no access) or 410 (gone) */
  getResource(id: string): Promise<ResourceDetail>;
}

export interface Connector {
  /** checks the token at the target; throws ConnectorError 401 when the target rejects it */
  open(token: string): Promise<ConnectorSession>;
  /** whether the target's upstream answers */
  status(): Promise<TargetStatus>;
}

/** What a connector's folder exports so that the targets file can name it. */
export interface ConnectorDefinition<Options = unknown> {
  /** the value of `connector` in a targets-file entry */
  readonly name: string;
  /** problems with an entry's `options`, each naming the option; empty when they are usable */
  validateOptions(options: unknown): string[];
  create(options: Options, context: ConnectorContext): Connector;
}

export interface ConnectorContext {
  /** the target entry's name */
  targetName: string;
  /** where relative paths in options resolve (the service's DATA_DIR) */
  dataDir: string;
  /** the directory of the targets file, where paths that ship with it (such as seed data) resolve */
  configDir: string;
  /** the service's default page size, unless the entry's options set `per_page` */
  perPage: number;
}
