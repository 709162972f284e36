import type {
  CollectionPage,
  CollectionQuery,
  Connector,
  ConnectorDefinition,
  ConnectorSession,
  RemoteFile,
  RemoteFolder,
  ResourceDetail,
  ResourceSummary,
  ResourceWriter,
  TargetStatus,
  WriterOptions,
} from '../connector';
import { ConnectorError } from '../connector-error';
import { Upstream } from '../http';
import { withZippedFolders } from '../zipped-folders';
import { ZenodoApi } from './api';
import { getResource } from './detail';
import { userName } from './entities';
import { keywords, setKeywords } from './keywords';
import { listResources } from './listing';
import {
  DEFAULT_API_URL,
  DEFAULT_UPLOAD_TYPE,
  MAX_PAGE_SIZE,
  validateOptions,
  type ZenodoOptions,
} from './options';
import type { ZenodoSessionContext } from './session-context';
import { walk } from './walking';
import { createProject, openWriter } from './writing';

class ZenodoSession implements ConnectorSession {
  readonly username: string;

  constructor(private readonly context: ZenodoSessionContext) {
    this.username = context.username;
  }

  listResources(query: CollectionQuery): Promise<CollectionPage> {
    return listResources(this.context, query);
  }

  getResource(id: string): Promise<ResourceDetail> {
    return getResource(this.context.api, id);
  }

  walk(id: string): AsyncIterable<RemoteFolder | RemoteFile> {
    return walk(this.context.api, id);
  }

  createProject(title: string): Promise<ResourceSummary> {
    return createProject(this.context, title);
  }

  openWriter(containerId: string, options: WriterOptions): Promise<ResourceWriter> {
    return openWriter(this.context, containerId, options);
  }

  keywords(id: string): Promise<string[]> {
    return keywords(this.context.api, id);
  }

  setKeywords(id: string, tags: readonly string[]): Promise<string[]> {
    return setKeywords(this.context.api, id, tags);
  }
}

type SessionSettings = Omit<ZenodoSessionContext, 'api' | 'username'>;

class ZenodoConnector implements Connector {
  /** Zenodo keeps an md5 of every file (https://developers.zenodo.org/#deposition-files) */
  readonly hashAlgorithms = ['md5'];

  constructor(
    private readonly upstream: Upstream,
    private readonly settings: SessionSettings,
    private readonly statusTimeoutMs: number,
  ) {}

  /**
   * Checks the token with the cheapest authenticated call, a one-deposition page of the user's depositions
   * (https://developers.zenodo.org/#list), whose `owner` also names the user. Zenodo refuses a token it does
   * not know with 401 and one without the deposit scopes with 403: both are a token it will not take.
   */
  async open(token: string): Promise<ConnectorSession> {
    // in a header, never in the query string: URLs get logged
    const api = new ZenodoApi(this.upstream.as({ authorization: `Bearer ${token}` }));
    try {
      const [latest] = await api.depositions({ page: 1, size: 1 });
      return new ZenodoSession({ ...this.settings, api, username: userName(latest?.owner) });
    } catch (error) {
      if (error instanceof ConnectorError && error.status === 403) throw ConnectorError.invalidToken(403);
      throw error;
    }
  }

  /** Whether the deposit API answers at all: without a token it answers 401 (https://developers.zenodo.org/#quickstart-upload). */
  status(): Promise<TargetStatus> {
    return this.upstream.probe('deposit/depositions', this.statusTimeoutMs);
  }
}

export const zenodoConnector: ConnectorDefinition<ZenodoOptions> = {
  name: 'zenodo',
  validateOptions,
  create(options, context) {
    const upstream = new Upstream('Zenodo', options.api_url ?? DEFAULT_API_URL, context.upstream);
    const settings = {
      perPage: options.per_page ?? Math.min(context.perPage, MAX_PAGE_SIZE),
      publish: options.publish ?? false,
      uploadType: options.upload_type ?? DEFAULT_UPLOAD_TYPE,
    };
    // Zenodo keeps no folders: a resource with folders is kept as one zip of a bag, and unpacked when read
    return withZippedFolders(new ZenodoConnector(upstream, settings, context.statusTimeoutMs), context);
  },
};
