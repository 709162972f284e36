import { FakeServer, type FakeRequest } from '../fake-server';
import { accountRoutes } from './account-routes';
import type { FakeContext, Handler, ZipReader } from './common';
import { datasetRoutes } from './dataset-routes';
import { fileRoutes } from './file-routes';
import { archivalForm, settle, typeByName } from './ingest';
import { error } from './json';
import { DataverseState, type ChecksumType, type Dataset, type Field, type User } from './model';
import { FakeStore } from './store';

export interface SeededDataset {
  title: string;
  /** files by path inside the dataset (`data/values.csv`: folder `data`) */
  files?: Record<string, string | Buffer>;
  keywords?: string[];
  subject?: string[];
  /** published (a user's doing at Dataverse), so that anyone may read it */
  published?: boolean;
  /** published and then deaccessioned */
  deaccessioned?: boolean;
  /** paths of files that were ingested as tabular data: served as `.tab`, their uploads kept as originals */
  ingested?: string[];
}

/**
 * A fake Dataverse installation (https://guides.dataverse.org/en/latest/api/) on 127.0.0.1: the native API
 * and the Data Access API below `/api`, with the state it keeps, and an S3 store (`store`) for direct
 * uploads and redirected downloads. Every handler follows the API Guide and IQSS/dataverse's source where
 * the guide is thin (each cites it). Tests seed users and datasets, set the installation's checksum type,
 * turn direct upload and redirected downloads on, lock datasets, and read back what was written through
 * `state`.
 */
export class DataverseFake {
  readonly server = new FakeServer('Dataverse', '/api');
  readonly state = new DataverseState();
  readonly store = new FakeStore(this.state);
  /** direct upload to the store: off (a file store, Dataverse's default), or on with this part size */
  directUpload: { partSize: number } | null = null;
  /** whether the Data Access API redirects downloads to the store (S3's `download-redirect`) */
  redirectDownloads = false;
  /** how long a tabular ingest runs, holding its Ingest lock */
  ingestMs = 300;
  /** how an uploaded zip is read: as Dataverse does now, or as before IQSS/dataverse#10899 (ZipReader) */
  zipReader: ZipReader = 'ZipFile';
  private nextUser = 1;

  async start(): Promise<this> {
    const context: FakeContext = {
      state: this.state,
      directUpload: () => this.directUpload,
      redirectDownloads: () => this.redirectDownloads,
      ingestMs: () => this.ingestMs,
      zipReader: () => this.zipReader,
      presign: (key, storageIdentifier, size, partSize, dataset) =>
        this.store.presign(key, storageIdentifier, size, partSize, dataset),
      presignDownload: (file, original) => this.store.presignDownload(file, original),
      stored: (storageIdentifier) => this.store.stored(storageIdentifier),
      completeUpload: (uploadId, etags) => this.store.complete(uploadId, etags),
      abortUpload: (uploadId) => this.store.abort(uploadId),
    };
    const route = (method: string, template: string, handler: Handler) =>
      this.server.route(method, template, (request, answer) => {
        settle(this.state);
        const caller = this.caller(request);
        // ApiKeyAuthMechanism: a key Dataverse does not know is refused before any endpoint runs
        if (caller === 'unknown') return answer.json(401, error('Bad API key'));
        return handler(request, answer, caller);
      });
    accountRoutes(route, context);
    datasetRoutes(route, context);
    fileRoutes(route, context);
    await this.server.start();
    await this.store.server.start();
    return this;
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.store.server.stop();
  }

  /** A user Dataverse knows by `token`. */
  addUser(
    token: string,
    firstName = 'Alice',
    lastName = 'Example',
    email = `${firstName.toLowerCase()}@example.org`,
  ): User {
    const user: User = {
      id: this.nextUser++,
      token,
      userName: firstName.toLowerCase(),
      firstName,
      lastName,
      email,
    };
    this.state.users.set(token, user);
    return user;
  }

  /** The installation's checksum type for files stored from now on (:FileFixityChecksumAlgorithm). */
  set checksumType(type: ChecksumType) {
    this.state.checksumType = type;
  }

  /** A dataset of `owner` in the root collection, newer than any made before, holding `files`. */
  seed(owner: User, seeded: SeededDataset): Dataset {
    const field = (typeName: string, typeClass: string, multiple: boolean, value: unknown): Field => ({
      typeName,
      typeClass,
      multiple,
      value,
    });
    const primitive = (typeName: string, value: string) => ({
      [typeName]: field(typeName, 'primitive', false, value),
    });
    const fields: Field[] = [
      field('title', 'primitive', false, seeded.title),
      field('author', 'compound', true, [primitive('authorName', `${owner.lastName}, ${owner.firstName}`)]),
      field('datasetContact', 'compound', true, [primitive('datasetContactEmail', owner.email)]),
      field('dsDescription', 'compound', true, [primitive('dsDescriptionValue', `About ${seeded.title}`)]),
      field('subject', 'controlledVocabulary', true, seeded.subject ?? ['Earth and Environmental Sciences']),
      ...(seeded.keywords?.length
        ? [
            field(
              'keyword',
              'compound',
              true,
              seeded.keywords.map((keyword) => primitive('keywordValue', keyword)),
            ),
          ]
        : []),
    ];
    const dataset = this.state.createDataset(owner, 'root', fields);
    const draft = dataset.draft!;
    for (const [path, content] of Object.entries(seeded.files ?? {})) {
      const slash = path.lastIndexOf('/');
      const label = path.slice(slash + 1);
      const file = this.state.storeFile(Buffer.from(content), typeByName(label));
      const entry = {
        label,
        directoryLabel: slash < 0 ? undefined : path.slice(0, slash),
        description: '',
        restricted: false,
        dataFileId: file.id,
      };
      if (seeded.ingested?.includes(path)) {
        file.original = { content: file.content, name: label, format: file.contentType };
        file.content = archivalForm(file.content, ',');
        file.contentType = 'text/tab-separated-values';
        entry.label = label.replace(/\.[^.]*$/, '') + '.tab';
      }
      draft.files.push(entry);
    }
    if (seeded.published || seeded.deaccessioned) this.state.publish(dataset);
    if (seeded.deaccessioned) dataset.published!.state = 'DEACCESSIONED';
    return dataset;
  }

  /** Locks a dataset (`Workflow`, `InReview`, `EditInProgress`, ...) for `ms`, or until unlocked. */
  lock(dataset: Dataset, type: string, ms?: number): void {
    dataset.locks.push({
      type,
      user: 'dataverseAdmin',
      start: new Date(),
      until: ms === undefined ? undefined : Date.now() + ms,
    });
  }

  unlock(dataset: Dataset): void {
    dataset.locks = [];
  }

  reset(): void {
    this.state.clear();
    this.store.clear();
    this.directUpload = null;
    this.redirectDownloads = false;
    this.ingestMs = 300;
    for (const server of [this.server, this.store.server]) {
      server.clearFaults();
      server.requests.length = 0;
      server.answers.length = 0;
      server.latencyMs = 0;
    }
  }

  /**
   * The user a request's API token names: `X-Dataverse-key`, or the `key` query parameter
   * (https://guides.dataverse.org/en/latest/api/auth.html); null without one (a guest), `unknown` for one
   * Dataverse does not know.
   */
  private caller(request: FakeRequest): User | null | 'unknown' {
    const header = request.headers['x-dataverse-key'];
    const token = (Array.isArray(header) ? header[0] : header) ?? request.url.searchParams.get('key');
    if (token === null || token === undefined) return null;
    return this.state.userByToken(token) ?? 'unknown';
  }
}
