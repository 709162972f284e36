import { FakeServer, type FakeRequest } from '../fake-server';
import {
  depositionFileRoutes,
  depositRoutes,
  recordRoutes,
  type Caller,
  type ZenodoHandler,
} from './deposit-routes';
import { fileRoutes, startStorageHost, type StorageHost } from './file-routes';
import { storedFile, ZenodoState, type StoredDeposition } from './model';
import { RateLimiter, Reply } from './reply';

export interface SeededDeposition {
  title: string;
  files?: Record<string, string | Buffer>;
  keywords?: string[];
  uploadType?: string;
  published?: boolean;
  license?: string;
  /**
   * custom fields, which zenodo-rdm's legacy serializer answers in the metadata as `custom`
   * (dump_custom_fields in site/zenodo_rdm/legacy/serializers/schemas/common.py), e.g. `code:codeRepository`
   */
  custom?: Record<string, unknown>;
}

/**
 * A fake Zenodo (https://developers.zenodo.org/) on 127.0.0.1: the deposit API below `/api` with the state it
 * keeps, the bucket API files go into, the download links files come from, and Zenodo's rate limits. Tests
 * seed users and depositions and read back what was written through `state`.
 */
export class ZenodoFake {
  readonly server = new FakeServer('Zenodo', '/api');
  readonly state = new ZenodoState();
  /** Zenodo's limit for authenticated users (https://developers.zenodo.org/#rate-limiting) */
  readonly rateLimit = new RateLimiter(100, 60_000);
  private readonly owners = new Map<string, number>();
  private storage: StorageHost | null = null;
  /** whether downloads go to the storage host (until the next reset) */
  private redirecting = false;
  private nextOwner = 1001;

  async start(): Promise<this> {
    const route = (method: string, template: string, handler: ZenodoHandler) =>
      this.server.route(method, template, (request, answer) => {
        const caller = this.caller(request);
        const { allowed, headers } = this.rateLimit.take(
          caller.owner === null ? 'guest' : String(caller.owner),
        );
        const reply = new Reply(answer, headers);
        if (!allowed) return reply.error(429, 'Too many requests.');
        return handler(request, reply, caller);
      });
    const context = {
      state: this.state,
      api: () => this.server.url,
      storage: () => (this.redirecting ? this.storage : null),
    };
    depositRoutes(route, context);
    depositionFileRoutes(route, context);
    recordRoutes(route, context);
    fileRoutes(route, context);
    await this.server.start();
    return this;
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.storage?.server.stop();
  }

  /** A user Zenodo knows by `token`; their owner number. */
  addUser(token: string): number {
    const owner = this.nextOwner++;
    this.owners.set(token, owner);
    return owner;
  }

  /** Downloads redirect to a storage host until the next reset; it is returned to look at what it received. */
  async redirectDownloads(): Promise<FakeServer> {
    this.storage ??= await startStorageHost();
    this.redirecting = true;
    this.storage.server.requests.length = 0;
    return this.storage.server;
  }

  /** A deposition of `owner`, newer than any made before. */
  seed(owner: number, seeded: SeededDeposition): StoredDeposition {
    const metadata: Record<string, unknown> = {
      title: seeded.title,
      upload_type: seeded.uploadType ?? 'dataset',
      description: `About ${seeded.title}`,
      creators: [{ name: 'Doe, Jane' }],
      ...(seeded.keywords ? { keywords: seeded.keywords } : {}),
      ...(seeded.license ? { license: seeded.license } : {}),
      ...(seeded.custom ? { custom: seeded.custom } : {}),
    };
    const deposition = this.state.create(owner, metadata);
    for (const [key, content] of Object.entries(seeded.files ?? {}))
      deposition.files.push(storedFile(key, Buffer.from(content)));
    if (seeded.published) {
      deposition.submitted = true;
      deposition.state = 'done';
    }
    return deposition;
  }

  reset(): void {
    this.state.clear();
    this.redirecting = false;
    this.rateLimit.clear();
    this.server.clearFaults();
    this.server.requests.length = 0;
    this.server.answers.length = 0;
  }

  /** The owner a request's token names: `Authorization: Bearer` or `access_token` (https://developers.zenodo.org/#authentication). */
  private caller(request: FakeRequest): Caller {
    const header = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''));
    const token = header?.[1] ?? request.url.searchParams.get('access_token');
    return { owner: token === null ? null : (this.owners.get(token) ?? null) };
  }
}
