import type { Readable } from 'node:stream';
import { ConnectorError } from '../connector-error';
import { readJson, type UpstreamClient } from '../http';
import { asRecord, asSearchAnswer, type CurateNdRecord, type SearchAnswer } from './entities';
import { upstreamId } from './ids';

/** Query parameters of `GET items` (Api::QueryBuilder and Blacklight's paging in ndlib/curate_nd). */
export interface ItemsQuery {
  /** `self`: the works the token's user may edit */
  editor?: 'self';
  depositor?: 'self';
  /** a phrase the title must hold */
  title?: string;
  /** Blacklight's query over all of a work's text fields */
  q?: string;
  /** the fields `q` is matched in: one of CatalogController's search fields, `all_fields` unless given */
  search_field?: 'title';
  page?: number;
  rows?: number;
  /** one of Api::QueryBuilder::SORT_OPTIONS, e.g. `modify_date desc` */
  sort?: string;
}

/** The calls this connector makes to CurateND's API for one user. */
export class CurateNdApi {
  constructor(private readonly client: UpstreamClient) {}

  /**
   * `GET items`. CurateND answers 400 with a JSON `error` when a `self` filter comes without a known token
   * (Api::QueryBuilder#valid_value), which is how a token is checked.
   */
  async search(query: ItemsQuery): Promise<SearchAnswer> {
    const response = await this.client.request({ url: 'items', query: { ...query } });
    if (response.status === 400 && (query.editor === 'self' || query.depositor === 'self')) {
      await response.body.dump();
      throw ConnectorError.invalidToken(400);
    }
    if (response.status >= 300) throw await this.client.failure(response);
    return asSearchAnswer(await readJson<unknown>(response, this.client.upstream.name));
  }

  /**
   * `GET items/{id}`: a work or a file; 403 and 404 as CurateND answers them (Api::BaseController), and 404
   * without asking for an id that cannot be CurateND's.
   */
  async record(id: string): Promise<CurateNdRecord> {
    const upstream = upstreamId(id);
    if (upstream === null) throw ConnectorError.unknownResource(id);
    const { data } = await this.client.json<unknown>({ url: `items/${encodeURIComponent(upstream)}` }, id);
    return asRecord(data);
  }

  /**
   * Whether this CurateND filters by title (`title`, among Api::QueryBuilder's keys since February 2021,
   * ndlib/curate_nd f9466725). Api::QueryBuilder#valid_value refuses the value `self` of any key it knows when
   * no user is behind the request, and ignores a key it does not know: asked anonymously with `title=self`, a
   * CurateND that has the filter answers 400, an older one 200.
   */
  async knowsTitleFilter(): Promise<boolean> {
    const response = await this.client.request({ url: 'items', query: { title: 'self', rows: 1 } });
    if (response.status !== 400 && response.status >= 300) throw await this.client.failure(response);
    await response.body.dump();
    return response.status === 400;
  }

  /** A file's bytes from its `downloadUrl`, streamed. */
  async download(downloadUrl: string, id: string): Promise<Readable> {
    const response = await this.client.stream({ url: downloadUrl, headers: { accept: '*/*' } }, id);
    return response.body;
  }

  /**
   * The length a download of the file announces, asked with HEAD (Rails answers HEAD on a GET route, without
   * the body); null when it announces none.
   */
  async downloadLength(downloadUrl: string, id: string): Promise<number | null> {
    const response = await this.client.stream(
      { method: 'HEAD', url: downloadUrl, headers: { accept: '*/*' } },
      id,
    );
    await response.body.dump();
    const length = Number(response.headers['content-length']);
    return Number.isSafeInteger(length) && length >= 0 ? length : null;
  }
}
