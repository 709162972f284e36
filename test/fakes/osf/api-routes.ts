import type { FakeAnswer, FakeRequest, FakeServer } from '../fake-server';
import { fileJson, nodeJson, providerJson, userJson, type Origins } from './json';
import {
  isContributor,
  materializedPath,
  OSF_STORAGE,
  type FakeEntry,
  type FakeFolder,
  type FakeNode,
  type FakeUser,
  type OsfModel,
} from './model';

/**
 * OSF API v2 as the connector uses it, answering as version 2.20 does. Docs: https://developer.osf.io/
 * (operation ids in each route's comment); behaviour not in the docs follows OSF's code
 * (https://github.com/CenterForOpenScience/osf.io, the files named in each comment).
 */

const VERSION = '2.20';
/** OSF's default page size (REST_FRAMEWORK PAGE_SIZE in api/base/settings/defaults.py). */
const DEFAULT_PAGE_SIZE = 10;

type Viewer = FakeUser | null;
type Handler = (request: FakeRequest, answer: FakeAnswer, viewer: Viewer) => void | Promise<void>;
type TagsBody = { data?: { id?: string; type?: string; attributes?: { tags?: unknown } } };

export interface ApiSettings {
  /** OSF cuts `page[size]` down to 100 (MAX_PAGE_SIZE); a test may make it smaller */
  maxPageSize: number;
}

/** https://developer.osf.io/#tag/Errors-and-Error-Codes: `{errors: [{detail}]}`. */
function fail(answer: FakeAnswer, status: number, detail: string): void {
  answer.json(status, { errors: [{ detail }], meta: { version: VERSION } });
}

export class ApiRoutes {
  constructor(
    private readonly api: FakeServer,
    private readonly model: OsfModel,
    private readonly origins: () => Origins,
    private readonly settings: ApiSettings,
  ) {}

  install(): void {
    this.userRoutes();
    this.nodeRoutes();
    this.storageRoutes();
    this.fileRoutes();
  }

  private userRoutes(): void {
    /** https://developer.osf.io/#operation/base_read */
    this.api.route(
      'GET',
      '/',
      this.authenticated((_request, answer, viewer) =>
        answer.json(200, {
          meta: {
            message: 'Welcome to the OSF API.',
            version: VERSION,
            current_user: viewer && { data: this.user(viewer) },
          },
          links: { nodes: `${this.origins().api}/nodes/`, users: `${this.origins().api}/users/` },
        }),
      ),
    );
    /** https://developer.osf.io/#operation/users_list: newest registrations first; `filter[full_name]` matches substrings. */
    this.api.route(
      'GET',
      '/users/',
      this.authenticated((request, answer) => {
        const filters = filtersOf(request, answer, ['full_name']);
        if (!filters) return;
        const name = filters.get('full_name')?.toLowerCase() ?? '';
        const users = this.model.users
          .filter((user) => user.fullName.toLowerCase().includes(name))
          .sort((a, b) => b.registered.getTime() - a.registered.getTime());
        this.page(request, answer, users, (user) => this.user(user));
      }),
    );
    /** https://developer.osf.io/#operation/users_read: `me` is the user behind the token. */
    this.api.route(
      'GET',
      '/users/{user_id}/',
      this.authenticated((request, answer, viewer) => {
        const user = this.userNamed(request.params.user_id, viewer);
        if (!user) return fail(answer, request.params.user_id === 'me' ? 401 : 404, 'Not found.');
        answer.json(200, { data: this.user(user), meta: { version: VERSION } });
      }),
    );
    /**
     * https://developer.osf.io/#operation/users_nodes_list: the nodes the user contributes to (only public
     * ones unless the user is the viewer), newest first; filters by OSF's rules (api/base/filters.py):
     * `title` a substring, `tags` a whole tag ignoring case, `contributors` a user id, `parent=null` the
     * top-level nodes (api/nodes/filters.py).
     */
    this.api.route(
      'GET',
      '/users/{user_id}/nodes/',
      this.authenticated((request, answer, viewer) => {
        const user = this.userNamed(request.params.user_id, viewer);
        if (!user) return fail(answer, 404, 'Not found.');
        const filters = filtersOf(request, answer, ['id', 'title', 'tags', 'parent', 'contributors']);
        if (!filters) return;
        const nodes = [...this.model.nodes.values()].filter(
          (node) =>
            !node.deleted &&
            isContributor(node, user) &&
            (user === viewer || node.public) &&
            nodeMatches(node, filters),
        );
        this.page(request, answer, sortNodes(nodes, request), (node) => this.node(node, viewer));
      }),
    );
  }

  private nodeRoutes(): void {
    /**
     * https://developer.osf.io/#operation/nodes_create: `title` and `category` required; private unless
     * `public`; stored in the creator's default region unless a `region` is asked for (NodeSerializer.create in
     * api/nodes/serializers.py, NodeSettings.on_add in addons/osfstorage/models.py), which this fake does not take.
     */
    this.api.route(
      'POST',
      '/nodes/',
      this.authenticated(async (request, answer, viewer) => {
        if (!viewer) return fail(answer, 401, 'Authentication credentials were not provided.');
        const body = await request.json<{ data?: { type?: string; attributes?: Record<string, unknown> } }>();
        if (body?.data?.type !== 'nodes') return fail(answer, 409, 'This resource has a type of "nodes".');
        const { title, category, public: isPublic } = body.data.attributes ?? {};
        if (typeof title !== 'string' || title === '' || typeof category !== 'string')
          return fail(answer, 400, 'This field is required.');
        const node = this.model.addNode(viewer, title, { category, public: isPublic === true });
        answer.json(201, { data: this.node(node, viewer), meta: { version: VERSION } });
      }),
    );
    /** https://developer.osf.io/#operation/nodes_read */
    this.api.route(
      'GET',
      '/nodes/{node_id}/',
      this.authenticated((request, answer, viewer) => {
        const node = this.nodeFor(request.params.node_id, viewer, answer);
        if (node) answer.json(200, { data: this.node(node, viewer), meta: { version: VERSION } });
      }),
    );
    /**
     * https://developer.osf.io/#operation/nodes_partial_update: write contributors only; the body's `id` and
     * `type` must match (409, https://developer.osf.io/#tag/Request-Formatting). This fake updates tags.
     */
    this.api.route(
      'PATCH',
      '/nodes/{node_id}/',
      this.authenticated(async (request, answer, viewer) => {
        const node = this.nodeFor(request.params.node_id, viewer, answer, true);
        if (!node) return;
        const tags = tagsOf(await request.json<TagsBody>(), 'nodes', node.id, answer);
        if (tags === null) return;
        if (tags !== undefined) {
          node.tags = tags;
          node.modified = this.model.now();
        }
        answer.json(200, { data: this.node(node, viewer), meta: { version: VERSION } });
      }),
    );
    /**
     * https://developer.osf.io/#operation/nodes_delete: by a contributor with write access, answered 204 with
     * no body; the node answers 410 afterwards.
     */
    this.api.route(
      'DELETE',
      '/nodes/{node_id}/',
      this.authenticated((request, answer, viewer) => {
        const node = this.nodeFor(request.params.node_id, viewer, answer, true);
        if (!node) return;
        node.deleted = true;
        answer.empty(204);
      }),
    );
    /** https://developer.osf.io/#operation/nodes_children_list: the child nodes the viewer may see, newest first. */
    this.api.route(
      'GET',
      '/nodes/{node_id}/children/',
      this.authenticated((request, answer, viewer) => {
        const node = this.nodeFor(request.params.node_id, viewer, answer);
        if (!node) return;
        const children = [...this.model.nodes.values()].filter(
          (child) =>
            child.parent === node && !child.deleted && (child.public || isContributor(child, viewer)),
        );
        this.page(request, answer, sortNodes(children, request), (child) => this.node(child, viewer));
      }),
    );
  }

  private storageRoutes(): void {
    /** https://developer.osf.io/#operation/nodes_providers_list: a node's storage providers, as folders. */
    this.api.route(
      'GET',
      '/nodes/{node_id}/files/',
      this.authenticated((request, answer, viewer) => {
        const node = this.nodeFor(request.params.node_id, viewer, answer);
        if (node)
          this.page(request, answer, [...node.storages.values()], (root) =>
            providerJson(root, this.origins()),
          );
      }),
    );
    /**
     * https://developer.osf.io/#operation/nodes_files_list: the entries of a provider's root, or of a folder
     * (a path ending in `/` lists, api/nodes/urls.py), ordered by path (NodeFilesList.ordering);
     * `filter[name]` matches substrings, `filter[kind]` is `file` or `folder`.
     */
    const listFolder = this.authenticated((request, answer, viewer) => {
      const node = this.nodeFor(request.params.node_id, viewer, answer);
      if (!node) return;
      const root = node.storages.get(request.params.provider);
      const folder = root && folderAtPath(this.model, root, request.params.path ?? '');
      if (!folder) return fail(answer, 404, 'Not found.');
      const filters = filtersOf(request, answer, ['name', 'kind']);
      if (!filters) return;
      const name = filters.get('name')?.toLowerCase() ?? '';
      const kind = filters.get('kind');
      const entries = folder.children
        .filter(
          (entry) => entry.name.toLowerCase().includes(name) && (kind === undefined || entry.kind === kind),
        )
        .sort((a, b) => compare(materializedPath(a), materializedPath(b)));
      this.page(request, answer, entries, (entry) => fileJson(entry, this.origins()));
    });
    this.api.route('GET', '/nodes/{node_id}/files/{provider}/', listFolder);
    this.api.route('GET', '/nodes/{node_id}/files/{provider}/{path}/', listFolder, ['path']);
  }

  private fileRoutes(): void {
    /** https://developer.osf.io/#operation/files_detail */
    this.api.route(
      'GET',
      '/files/{file_id}/',
      this.authenticated((request, answer, viewer) => {
        const entry = this.entryFor(request.params.file_id, viewer, answer);
        if (entry) answer.json(200, { data: fileJson(entry, this.origins()), meta: { version: VERSION } });
      }),
    );
    /**
     * https://developer.osf.io/#operation/files_patch: this fake updates tags, which OSF keeps only on
     * osfstorage files and refuses elsewhere with 409 (BaseFileSerializer.update, api/files/serializers.py).
     */
    this.api.route(
      'PATCH',
      '/files/{file_id}/',
      this.authenticated(async (request, answer, viewer) => {
        const entry = this.entryFor(request.params.file_id, viewer, answer, true);
        if (!entry) return;
        const tags = tagsOf(await request.json<TagsBody>(), 'files', entry.id, answer);
        if (tags === null) return;
        if (tags !== undefined && entry.provider !== OSF_STORAGE)
          return fail(
            answer,
            409,
            `File service provider ${entry.provider} does not support tags on the OSF.`,
          );
        if (tags !== undefined) entry.tags = tags;
        answer.json(200, { data: fileJson(entry, this.origins()), meta: { version: VERSION } });
      }),
    );
  }

  /** https://developer.osf.io/#tag/Authentication: `Authorization: Bearer <token>`; a token OSF does not know is 401. */
  private authenticated(handler: Handler) {
    return (request: FakeRequest, answer: FakeAnswer): void | Promise<void> => {
      const header = request.headers.authorization;
      if (header === undefined) return handler(request, answer, null);
      const viewer = this.model.userByToken(/^Bearer (.+)$/.exec(header)?.[1] ?? '');
      if (!viewer) return fail(answer, 401, 'User provided an invalid OAuth2 access token');
      return handler(request, answer, viewer);
    };
  }

  /**
   * A node the viewer may see (or write): 404 unknown, 410 deleted (NodeMixin.get_node), 401 without
   * credentials and 403 without permission (https://developer.osf.io/#operation/nodes_read).
   */
  private nodeFor(id: string, viewer: Viewer, answer: FakeAnswer, write = false): FakeNode | undefined {
    const node = this.model.nodes.get(id);
    if (!node) return void fail(answer, 404, 'Not found.');
    if (node.deleted) return void fail(answer, 410, 'The requested node is no longer available.');
    const allowed = isContributor(node, viewer) || (!write && node.public);
    if (!allowed && viewer === null)
      return void fail(answer, 401, 'Authentication credentials were not provided.');
    if (!allowed) return void fail(answer, 403, 'You do not have permission to perform this action.');
    return node;
  }

  private entryFor(id: string, viewer: Viewer, answer: FakeAnswer, write = false): FakeEntry | undefined {
    const entry = this.model.entries.get(id);
    if (!entry) return void fail(answer, 404, 'Not found.');
    return this.nodeFor(entry.node.id, viewer, answer, write) && entry;
  }

  private userNamed(id: string, viewer: Viewer): FakeUser | undefined {
    return id === 'me' ? (viewer ?? undefined) : this.model.users.find((user) => user.id === id);
  }

  private user(user: FakeUser) {
    return userJson(user, this.origins());
  }

  private node(node: FakeNode, viewer: Viewer) {
    return nodeJson(node, viewer, this.origins());
  }

  /**
   * A page of a collection (api/base/pagination.py, version 2.1 and later): `page[size]` (default 10, at most
   * the maximum), `page` (404 "Invalid page." past the last), `meta.total` and `meta.per_page`, and `links`
   * whose `first`/`prev` are null on the first page and `last`/`next` null on the last.
   */
  private page<T>(
    request: FakeRequest,
    answer: FakeAnswer,
    items: T[],
    serialize: (item: T) => unknown,
  ): void {
    const params = request.url.searchParams;
    const asked = Number(params.get('page[size]'));
    const size = Math.min(
      Number.isInteger(asked) && asked > 0 ? asked : DEFAULT_PAGE_SIZE,
      this.settings.maxPageSize,
    );
    const number = params.has('page') ? Number(params.get('page')) : 1;
    const pages = Math.max(1, Math.ceil(items.length / size));
    if (!Number.isInteger(number) || number < 1 || number > pages) return fail(answer, 404, 'Invalid page.');
    const link = (n: number) => {
      const query = new URLSearchParams(params);
      if (n === 1) query.delete('page');
      else query.set('page', String(n));
      const search = query.toString();
      return `${this.api.origin}${request.url.pathname}${search ? `?${search}` : ''}`;
    };
    answer.json(200, {
      data: items.slice((number - 1) * size, number * size).map(serialize),
      meta: { total: items.length, per_page: size, version: VERSION },
      links: {
        self: link(number),
        first: number > 1 ? link(1) : null,
        last: number < pages ? link(pages) : null,
        prev: number > 1 ? link(number - 1) : null,
        next: number < pages ? link(number + 1) : null,
      },
    });
  }
}

/**
 * The tags of a PATCH body: undefined when it sets none, null when it was answered with an error (its `type`
 * and `id` must match the entity: 409, https://developer.osf.io/#tag/Request-Formatting).
 */
function tagsOf(
  body: TagsBody | null,
  type: string,
  id: string,
  answer: FakeAnswer,
): string[] | undefined | null {
  if (body?.data?.type !== type || body.data.id !== id) {
    fail(answer, 409, 'Resource identifier does not match server endpoint.');
    return null;
  }
  const tags = body.data.attributes?.tags;
  if (tags === undefined) return undefined;
  if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string')) {
    fail(answer, 400, 'Expected a list of items.');
    return null;
  }
  return [...new Set(tags)];
}

/** `filter[field]` and `filter[field][op]` parameters by field; 400 for a field the fake does not filter on. */
function filtersOf(
  request: FakeRequest,
  answer: FakeAnswer,
  allowed: readonly string[],
): Map<string, string> | null {
  const filters = new Map<string, string>();
  for (const [key, value] of request.url.searchParams) {
    const field = /^filter\[(\w+)\](?:\[\w+\])?$/.exec(key)?.[1];
    if (field === undefined) continue;
    if (!allowed.includes(field)) {
      fail(answer, 400, `'${field}' is not a valid field for this endpoint.`);
      return null;
    }
    filters.set(field, value);
  }
  return filters;
}

function nodeMatches(node: FakeNode, filters: Map<string, string>): boolean {
  const value = (field: string) => filters.get(field)?.toLowerCase();
  const parent = value('parent');
  if (parent !== undefined && (parent === 'null' ? node.parent !== null : node.parent?.id !== parent))
    return false;
  const title = value('title');
  if (title !== undefined && !node.title.toLowerCase().includes(title)) return false;
  const tag = value('tags');
  if (tag !== undefined && !node.tags.some((each) => each.toLowerCase() === tag)) return false;
  const contributor = value('contributors');
  if (contributor !== undefined && !node.contributors.some((user) => user.id.toLowerCase() === contributor))
    return false;
  const ids = value('id');
  return ids === undefined || ids.split(',').includes(node.id);
}

/** `sort` by date_modified, date_created or title (`-` for descending); newest first by default. */
function sortNodes(nodes: FakeNode[], request: FakeRequest): FakeNode[] {
  const sort = request.url.searchParams.get('sort') ?? '-date_modified';
  const field = sort.replace(/^-/, '');
  const key = (node: FakeNode): string =>
    field === 'title' ? node.title : (field === 'date_created' ? node.created : node.modified).toISOString();
  const direction = sort.startsWith('-') ? -1 : 1;
  return nodes.sort((a, b) => direction * compare(key(a), key(b)));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The folder a listing path names: osfstorage by id (`<id>/`), other providers by path (`a/b/`). */
function folderAtPath(model: OsfModel, root: FakeFolder, path: string): FakeFolder | undefined {
  const trimmed = path.replace(/^\/|\/$/g, '');
  if (trimmed === '') return root;
  if (root.provider === OSF_STORAGE) {
    const entry = model.entries.get(trimmed);
    return entry?.kind === 'folder' && entry.node === root.node && entry.provider === root.provider
      ? entry
      : undefined;
  }
  let folder: FakeFolder | undefined = root;
  for (const name of trimmed.split('/'))
    folder = folder?.children.find(
      (child): child is FakeFolder => child.kind === 'folder' && child.name === name,
    );
  return folder;
}
