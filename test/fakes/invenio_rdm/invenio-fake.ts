import { FakeServer, type FakeRequest } from '../fake-server';
import { fileRoutes } from './file-routes';
import { InvenioState, storedFile, timestamp, type StoredRecord, type User } from './model';
import { recordRoutes } from './record-routes';

export interface SeededRecord {
  title: string;
  files?: Record<string, string | Buffer>;
  keywords?: string[];
  /** published (with no draft), else a draft never published */
  published?: boolean;
}

/**
 * A fake InvenioRDM instance (https://inveniordm.docs.cern.ch/reference/rest_api_index/) on 127.0.0.1, its
 * REST API below `/api`: the user's records and drafts, drafts and their three-step file uploads, new
 * versions, published records and their files, and users' public profiles. Tokens go in
 * `Authorization: Bearer` (https://inveniordm.docs.cern.ch/reference/rest_api_index/#authentication); a token
 * it does not know makes the request anonymous, as invenio-oauth2server does. Faults (429, 5xx, cut bodies)
 * come from FakeServer.inject.
 */
export class InvenioFake {
  readonly server = new FakeServer('InvenioRDM', '/api');
  readonly state = new InvenioState();
  private nextUser = 1;

  async start(): Promise<this> {
    const context = { state: this.state, api: () => this.server.url };
    const route = (
      method: string,
      template: string,
      handler: Parameters<Parameters<typeof recordRoutes>[0]>[2],
    ) =>
      this.server.route(method, template, (request, answer) =>
        handler(request, answer, this.caller(request)),
      );
    recordRoutes(route, context);
    fileRoutes(route, context);
    await this.server.start();
    return this;
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  addUser(token: string, fullName: string): User {
    const id = this.nextUser++;
    const user = { id, token, fullName, username: fullName.toLowerCase().replace(/\W+/g, '') };
    this.state.users.set(token, user);
    return user;
  }

  /** A record of `user`, newer than any made before: a draft, or a published record without a draft. */
  seed(user: User, seeded: SeededRecord): StoredRecord {
    const record = this.state.create(user.id, {
      title: seeded.title,
      resource_type: { id: 'dataset' },
      publication_date: timestamp().slice(0, 10),
      creators: [{ person_or_org: { type: 'personal', family_name: user.fullName, name: user.fullName } }],
      ...(seeded.keywords ? { subjects: seeded.keywords.map((subject) => ({ subject })) } : {}),
    });
    for (const [key, content] of Object.entries(seeded.files ?? {}))
      record.draft!.files.push(storedFile(key, Buffer.from(content)));
    if (seeded.published) {
      record.published = record.draft;
      record.draft = null;
    }
    return record;
  }

  reset(): void {
    this.state.clear();
    this.server.clearFaults();
    this.server.requests.length = 0;
    this.server.answers.length = 0;
  }

  private caller(request: FakeRequest): User | null {
    const token = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
    return token === undefined ? null : (this.state.users.get(token) ?? null);
  }
}
