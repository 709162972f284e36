import { FakeServer, type FakeAnswer, type FakeRequest } from '../fake-server';
import type { CharacterizationStyle } from './fits';
import { holdsPhrase, mayRead, words, type FakeObject } from './objects';
import { searchResult, showRecord } from './presenters';

/**
 * A fake of CurateND's API (https://curate.nd.edu/api), the part a read-only client uses: searching items,
 * showing one object, downloading a file. It follows the application's source, ndlib/curate_nd
 * (https://github.com/ndlib/curate_nd, master of 2023-11): config/routes.rb (`namespace :api`), the controllers
 * in app/controllers/api/ and the presenters in app/presenters/api/, and the draft guide doc/api.md on its
 * api-doc branch (2020). CurateND publishes no OpenAPI description.
 */

const INVALID_SEARCH = 'Invalid search request format. Please consult API documentation.';
/** CatalogController.search_config's `rows` when the query gives none; Blacklight's max_per_page. */
const DEFAULT_ROWS = 12;
const MAX_ROWS = 100;
/** Api::QueryBuilder::SORT_OPTIONS, by the Solr field each sorts on. */
const SORTS: Record<string, { field: 'modified' | 'submitted'; descending: boolean }> = {
  modify_date: { field: 'modified', descending: false },
  deposit_date: { field: 'submitted', descending: false },
  'modify_date asc': { field: 'modified', descending: false },
  'deposit_date asc': { field: 'submitted', descending: false },
  'modify_date desc': { field: 'modified', descending: true },
  'deposit_date desc': { field: 'submitted', descending: true },
};
/**
 * Api::QueryBuilder::VALID_KEYS_AND_SEARCH_FIELDNAMES this fake filters on; it refuses the others. `title`
 * came in February 2021 (ndlib/curate_nd f9466725, "API changes for SFX integration"): a CurateND older than
 * that does not know it.
 */
const FILTERS = ['editor', 'depositor', 'title'];
const UNSUPPORTED_FILTERS = [
  'admin_unit',
  'creator',
  'deposit_date',
  'doi',
  'modify_date',
  'part_of',
  'type',
  'representative',
];
const NOID_ALPHABET = '0123456789bcdfghjkmnpqrstvwxz';

export interface SeedWork {
  title: string;
  /** the depositing user, who owns and may edit the work */
  owner: string;
  subjects?: string[];
  description?: string;
  visibility?: FakeObject['visibility'];
  /** file name -> content */
  files?: Record<string, string | Buffer>;
  characterization?: CharacterizationStyle;
  /** the Dublin Core type; `Dataset` unless given */
  dcType?: string;
}

export class FakeCurateNd {
  /** the API, below `/api` */
  readonly server = new FakeServer('CurateND', '/api');
  /** where downloads are sent when `redirectDownloads` is set */
  readonly storage = new FakeServer('CurateND storage');
  /**
   * CurateND serves a download itself (DownloadsController hands it to nginx with X-Accel-Redirect); set,
   * downloads redirect to `storage` instead, as a deployment behind another file server might.
   */
  redirectDownloads = false;
  /**
   * Whether this CurateND has the `title` filter; unset, it is an older one, whose Api::QueryBuilder neither
   * validates nor applies the key (f9466725^:app/services/api/query_builder.rb): the answer is unfiltered.
   */
  titleFilter = true;
  private readonly users = new Map<string, string>();
  private readonly objects = new Map<string, FakeObject>();
  private clock = Date.UTC(2021, 0, 4, 9);
  private minted = 0;

  constructor() {
    this.server
      .route('GET', '/items', (request, answer) => this.search(request, answer))
      .route('GET', '/items/download/{id}', (request, answer) => this.download(request, answer))
      .route('GET', '/items/{id}', (request, answer) => this.show(request, answer));
    // The storage host serves a redirected download without asking who is asking.
    this.storage.route('GET', '/content/{id}', (request, answer) => this.sendFile(request.params.id, answer));
  }

  get url(): string {
    return this.server.url;
  }

  async start(): Promise<this> {
    await Promise.all([this.server.start(), this.storage.start()]);
    return this;
  }

  async stop(): Promise<void> {
    await Promise.all([this.server.stop(), this.storage.stop()]);
  }

  /** Forgets every object, user, request and fault. */
  reset(): void {
    this.users.clear();
    this.objects.clear();
    this.redirectDownloads = false;
    this.titleFilter = true;
    this.server.clearFaults();
    for (const server of [this.server, this.storage]) {
      server.requests.length = 0;
      server.answers.length = 0;
    }
  }

  /** A user and the API token CurateND issued to them (sent as `X-Api-Token`). */
  addUser(token: string, username: string): void {
    this.users.set(token, username);
  }

  /** A work with its files, deposited after everything before it; its id. */
  addWork(seed: SeedWork): string {
    const work = this.add({
      model: 'Dataset',
      dcType: seed.dcType ?? 'Dataset',
      title: seed.title,
      subjects: seed.subjects ?? [],
      description: seed.description,
      owner: seed.owner,
      visibility: seed.visibility ?? 'private',
    });
    for (const [label, content] of Object.entries(seed.files ?? {}))
      this.addFile(work.id, label, content, seed.characterization);
    return work.id;
  }

  /** A file deposited into a work; its id. */
  addFile(
    workId: string,
    label: string,
    content: string | Buffer,
    style: CharacterizationStyle = 'fits',
  ): string {
    const work = this.objects.get(workId)!;
    const file = this.add({
      model: 'GenericFile',
      title: label,
      subjects: [],
      owner: work.owner,
      visibility: work.visibility,
      workId,
      label,
      content: Buffer.from(content),
      mimeType: label.endsWith('.txt') ? 'text/plain' : 'application/octet-stream',
      characterization: style,
    });
    work.fileIds.push(file.id);
    return file.id;
  }

  /** A user's profile, which CurateND keeps as an object the user may edit; its id. */
  addPerson(username: string): string {
    return this.add({ model: 'Person', title: username, subjects: [], owner: username, visibility: 'public' })
      .id;
  }

  /** A collection of works; its id. */
  addCollection(title: string, owner: string): string {
    return this.add({ model: 'LibraryCollection', title, subjects: [], owner, visibility: 'public' }).id;
  }

  /** Records a change to an object now, as editing its metadata would (system_modified_dtsi). */
  touch(id: string): void {
    this.clock += 3_600_000;
    this.objects.get(id)!.modified = this.clock;
  }

  private add(
    fields: Pick<FakeObject, 'model' | 'title' | 'subjects' | 'owner' | 'visibility'> & Partial<FakeObject>,
  ): FakeObject {
    this.clock += 3_600_000;
    const object: FakeObject = {
      id: this.mint(),
      depositor: fields.owner,
      editors: [fields.owner],
      readers: [],
      submitted: this.clock,
      modified: this.clock,
      fileIds: [],
      ...fields,
    };
    this.objects.set(object.id, object);
    return object;
  }

  /** A noid of Sufia's template (`.reeddeeddk`): eleven characters of NOID_ALPHABET. */
  private mint(): string {
    let n = ++this.minted * 7_919 + 1_000_003;
    let id = '';
    for (let i = 0; i < 11; i++, n = Math.floor(n / NOID_ALPHABET.length))
      id += NOID_ALPHABET[n % NOID_ALPHABET.length];
    return id;
  }

  private userOf(request: FakeRequest): string | null {
    const token = request.headers['x-api-token'];
    return typeof token === 'string' ? (this.users.get(token) ?? null) : null;
  }

  /** scheme, host and port of the request: CurateND builds its links from them (`request_url.root`). */
  private root(): string {
    return this.server.origin;
  }

  /**
   * GET /api/items: a search of the works the token's user may read, 12 to a page.
   * - https://github.com/ndlib/curate_nd/blob/master/app/controllers/api/items_controller.rb (index):
   *   400 `{error}` for a query Api::QueryBuilder refuses: `self` without a known token, `rows` above the
   *   maximum, an unknown `sort`;
   * - https://github.com/ndlib/curate_nd/blob/master/app/services/api/query_builder.rb: `editor` and
   *   `depositor` (`self` = the token's user) and `title` become Solr filters of quoted phrases, a value split
   *   at `,` (any) or `^` (all);
   * - https://github.com/ndlib/curate_nd/blob/master/app/controllers/catalog_controller.rb: `q` searches a
   *   work's text fields (all_fields), or the title only with `search_field=title` (Blacklight 4's
   *   add_query_to_solr reads `search_field`; an unknown one searches all fields); people and collections are
   *   not filtered out (exclude_unwanted_models drops files, profiles, groups);
   * - https://github.com/ndlib/curate_nd/blob/master/app/presenters/api/items_search_presenter.rb: the
   *   answer's shape, including `pagination`;
   * - doc/api.md on the api-doc branch ("Do a Search"): an example answer of the live service.
   */
  private search(request: FakeRequest, answer: FakeAnswer): void {
    const params = Object.fromEntries(request.url.searchParams);
    const user = this.userOf(request);
    const refused = this.refusedQuery(params, user);
    if (refused) return answer.json(400, { error: refused });
    const sort = SORTS[params.sort ?? 'deposit_date desc'];
    const found = [...this.objects.values()]
      .filter((object) => object.model !== 'GenericFile' && mayRead(object, user))
      .filter((object) => this.matches(object, params, user))
      .sort((a, b) => (sort.descending ? b[sort.field] - a[sort.field] : a[sort.field] - b[sort.field]));
    const rows = Number(params.rows ?? DEFAULT_ROWS);
    const page = Math.max(1, Math.trunc(Number(params.page ?? 1)) || 1);
    const fields = [
      ...this.filters().filter((key) => key in params),
      ...(params.sort ? [params.sort.split(' ')[0]] : []),
    ];
    answer.json(200, {
      query: {
        queryUrl: `${this.root()}${request.url.pathname}${request.url.search}`,
        queryParameters: params,
      },
      results: found
        .slice((page - 1) * rows, page * rows)
        .map((object) => searchResult(object, this.root(), fields)),
      pagination: this.pagination(params, page, rows, found.length),
    });
  }

  /** The filters this CurateND knows (Api::QueryBuilder's keys among those the fake filters on). */
  private filters(): string[] {
    return this.titleFilter ? FILTERS : FILTERS.filter((key) => key !== 'title');
  }

  /** Why Api::QueryBuilder#valid_request? refuses the query, or why this fake cannot answer it. */
  private refusedQuery(params: Record<string, string>, user: string | null): string | undefined {
    // valid_value: `self` as the value of any key it knows needs a user
    const selfWithoutUser = this.filters().some((key) => params[key] === 'self') && user === null;
    const rows = params.rows === undefined ? DEFAULT_ROWS : Number(params.rows);
    // Ruby's to_i reads `abc` as 0, which Blacklight then replaces with its default; this fake asks for numbers
    if (selfWithoutUser || !(rows > 0 && rows <= MAX_ROWS)) return INVALID_SEARCH;
    if (params.sort !== undefined && !(params.sort in SORTS)) return INVALID_SEARCH;
    const unsupported = UNSUPPORTED_FILTERS.find((key) => key in params);
    return unsupported && `the fake CurateND does not filter by ${unsupported}`;
  }

  private matches(object: FakeObject, params: Record<string, string>, user: string | null): boolean {
    const person = (name: string) => (name === 'self' ? user : name);
    const tests: Record<string, (part: string) => boolean> = {
      editor: (name) => object.editors.includes(person(name)!),
      depositor: (name) => object.depositor === person(name),
      title: (phrase) => holdsPhrase(object.title, phrase),
    };
    const filtered = this.filters().filter((key) => params[key] !== undefined);
    if (!filtered.every((key) => filterMatches(params[key], tests[key]))) return false;
    if (params.q === undefined || params.q.trim() === '') return true;
    // dismax over the search field's text, every word required
    const fields =
      params.search_field === 'title'
        ? [object.title]
        : [object.id, object.title, object.description ?? '', ...object.subjects];
    const text = new Set(words(fields.join(' ')));
    return words(params.q).every((word) => text.has(word));
  }

  /** Pager#pagination_url_for: links carry the query's parameters (Rails' to_query: sorted, CGI-escaped). */
  private pagination(
    params: Record<string, string>,
    page: number,
    rows: number,
    total: number,
  ): Record<string, unknown> {
    const totalPages = total === 0 ? 1 : Math.ceil(total / rows);
    const link = (number: number | null) => {
      const query = { ...params };
      delete query.page;
      if (number !== null) query.page = String(number);
      const text = Object.keys(query)
        .sort()
        .map((key) => `${cgiEscape(key)}=${cgiEscape(query[key])}`)
        .join('&');
      return `${this.root()}${this.server.prefix}/items${text ? `?${text}` : ''}`;
    };
    return {
      itemsPerPage: rows,
      totalResults: total,
      currentPage: page,
      firstPage: link(null),
      lastPage: link(totalPages === 1 ? null : totalPages),
      ...(page === 1 ? {} : { previousPage: link(page - 1) }),
      ...(page === totalPages ? {} : { nextPage: link(page + 1) }),
    };
  }

  /**
   * GET /api/items/{id}: one object, as JSON.
   * - https://github.com/ndlib/curate_nd/blob/master/app/controllers/api/base_controller.rb
   *   (validate_permissions!): 403 `{error: 'Forbidden', user, item}` when the token's user (or an anonymous
   *   one) may not read it, 404 `{error: 'Item not found', user, item}` when there is no such object; the id
   *   is taken with or without `und:` (normalize_identifier), and `item` echoes it with;
   * - doc/api.md on the api-doc branch: the live service's answer for item 1j92g734t1t, like the answers
   *   captured in ndlib/marble-manifest-pipeline (curate_export/test/*.json);
   * - https://github.com/ndlib/curate_nd/blob/master/app/presenters/api/show_item_presenter.rb: the answer.
   */
  private show(request: FakeRequest, answer: FakeAnswer): void {
    const object = this.readable(request, answer);
    if (!object) return;
    const files = object.fileIds.map((id) => this.objects.get(id)!);
    const requestUrl = `${this.root()}${request.url.pathname}${request.url.search}`;
    answer.json(200, showRecord(object, files, requestUrl, this.root()));
  }

  /**
   * GET /api/items/download/{id}: a file's bytes.
   * - https://github.com/ndlib/curate_nd/blob/master/app/controllers/api/downloads_controller.rb: the
   *   same 403 and 404 as the item; a file is handed to nginx (X-Accel-Redirect), so it reaches the client
   *   from this URL; a work gives a zip of the files the user may read, or 417 `{error: 'No authorized
   *   content'}`;
   * - doc/api.md on the api-doc branch ("Get a file"): `curl -O https://curate.nd.edu/api/items/download/<id>`;
   * - HEAD is answered as GET without the body, as Rails' router routes HEAD to GET routes (Rack::Head).
   *   What nginx adds to a HEAD through X-Accel-Redirect is not documented: the fake gives the length.
   * Whether the content is served with `Accept-Ranges` is not documented, so this fake answers without ranges.
   */
  private async download(request: FakeRequest, answer: FakeAnswer): Promise<void> {
    const object = this.readable(request, answer);
    if (!object) return;
    if (object.model === 'GenericFile') {
      if (this.redirectDownloads)
        return answer.empty(302, { location: `${this.storage.origin}/content/${object.id}` });
      return this.sendFile(object.id, answer);
    }
    if (object.fileIds.length === 0) return answer.json(417, { error: 'No authorized content' });
    answer.json(501, { error: 'the fake CurateND does not zip the files of a work' });
  }

  private async sendFile(id: string, answer: FakeAnswer): Promise<void> {
    const file = this.objects.get(id);
    if (file?.content === undefined) return answer.json(404, { error: 'Item not found' });
    await answer.send(200, file.content, { 'content-type': file.mimeType! });
  }

  /** The object the request names when the user may read it; else answers 403 or 404 and gives nothing. */
  private readable(request: FakeRequest, answer: FakeAnswer): FakeObject | undefined {
    const item = request.params.id.startsWith('und:') ? request.params.id : `und:${request.params.id}`;
    const user = this.userOf(request);
    const object = this.objects.get(item.slice('und:'.length));
    if (!object) answer.json(404, { error: 'Item not found', user, item });
    else if (!mayRead(object, user)) answer.json(403, { error: 'Forbidden', user, item });
    else return object;
    return undefined;
  }
}

/** Ruby's CGI.escape: everything but letters, digits and `_.-~` percent-encoded, spaces as `+`. */
function cgiEscape(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** A filter value as Api::QueryBuilder#do_search_for reads it: `a,b` is any of them, `a^b` all of them. */
function filterMatches(value: string, test: (part: string) => boolean): boolean {
  return value.includes(',') ? value.split(',').some(test) : value.split('^').every(test);
}
