import type {
  CollectionPage,
  CollectionQuery,
  Connector,
  ConnectorContext,
  ConnectorDefinition,
  ConnectorSession,
  RemoteFile,
  RemoteFolder,
  ResourceDetail,
  ResourceSummary,
  ResourceWriter,
} from '../connector';
import { ConnectorError } from '../connector-error';
import { Upstream } from '../http';
import { remoteConnector } from '../remote-connector';
import { CurateNdApi } from './api';
import { describeRecord } from './detail';
import { upstreamId } from './ids';
import { listResources } from './listing';
import { DEFAULT_API_URL, MAX_PER_PAGE, validateOptions, type CurateNdOptions } from './options';
import { firstText, recordKind, texts, type CurateNdRecord } from './records';
import { walkRecord } from './walking';
import { pathSegmentProblem } from '../name-rules';
import { capabilities } from '../capabilities';

/** Shown as the user name when CurateND does not tell it (the user has deposited nothing yet). */
const UNNAMED_USER = 'CurateND user';

function readOnly(): ConnectorError {
  return new ConnectorError(
    400,
    'CurateND is a read-only source in this service: nothing can be written to it.',
  );
}

class CurateNdSession implements ConnectorSession {
  constructor(
    readonly username: string,
    private readonly api: CurateNdApi,
    private readonly perPage: number,
    private readonly knowsTitleFilter: () => Promise<boolean>,
  ) {}

  listResources(query: CollectionQuery): Promise<CollectionPage> {
    return listResources(this.api, query, this.perPage, this.knowsTitleFilter);
  }

  async getResource(id: string): Promise<ResourceDetail> {
    return describeRecord(await this.record(id), id);
  }

  async *walk(id: string): AsyncIterable<RemoteFolder | RemoteFile> {
    yield* walkRecord(this.api, await this.record(id), id);
  }

  /** The subjects CurateND keeps of a work or a file; none is an empty list. */
  async keywords(id: string): Promise<string[]> {
    const record = await this.record(id);
    if (recordKind(record) === null) throw ConnectorError.unknownResource(id);
    return texts(record.subject);
  }

  async createProject(): Promise<ResourceSummary> {
    throw readOnly();
  }

  async openWriter(): Promise<ResourceWriter> {
    throw readOnly();
  }

  async setKeywords(): Promise<string[]> {
    throw readOnly();
  }

  /** 404 without asking CurateND when the id cannot be one of its ids. */
  private record(id: string): Promise<CurateNdRecord> {
    const upstream = upstreamId(id);
    if (upstream === null) return Promise.reject(ConnectorError.unknownResource(id));
    return this.api.record(upstream);
  }
}

export const curateNdConnector: ConnectorDefinition<CurateNdOptions> = {
  name: 'curate_nd',
  // a source only: nothing is written to CurateND
  capabilities: capabilities({ searchFilters: ['general', 'title', 'id'], abilities: ['keywords'] }),
  validateOptions,
  create(options: CurateNdOptions, context: ConnectorContext): Connector {
    const upstream = new Upstream('CurateND', options.api_url ?? DEFAULT_API_URL, context.upstream);
    const perPage = options.per_page ?? Math.min(context.perPage, MAX_PER_PAGE);
    // asked once for the target, without a token, on the first title search; asked again after a failure
    const anonymous = new CurateNdApi(upstream.as({}));
    let titleFilter: Promise<boolean> | null = null;
    const knowsTitleFilter = (): Promise<boolean> => {
      titleFilter ??= anonymous.knowsTitleFilter().catch((error: unknown) => {
        titleFilter = null;
        throw error;
      });
      return titleFilter;
    };
    return remoteConnector({
      upstream,
      statusTimeoutMs: context.statusTimeoutMs,
      hashAlgorithms: ['md5'],
      // nothing is written to CurateND; the rule every target shares stands for it
      nameProblem: pathSegmentProblem,
      // the public search of one result: cheap, and answered without a token
      probePath: 'items?rows=1',
      /*
       * The token goes in `X-Api-Token` (Api::BaseController#set_current_user!). A search for the user's own
       * deposits checks it (CurateND refuses `self` without a known token) and names the user: the results
       * carry their `depositor`.
       */
      async open(token) {
        const api = new CurateNdApi(upstream.as({ 'x-api-token': token }));
        const deposits = await api.search({ editor: 'self', depositor: 'self', rows: 1 });
        const username = firstText(deposits.results[0]?.depositor) ?? UNNAMED_USER;
        return new CurateNdSession(username, api, perPage, knowsTitleFilter);
      },
    });
  },
};
