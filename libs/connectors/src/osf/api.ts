import { readJson, type UpstreamClient } from '../http';
import { link, type CollectionDocument, type Entity } from './entities';
import { WaterButler } from './waterbutler';

/**
 * The API version every request pins (https://developer.osf.io/#tag/Versioning): from 2.1 on, a page carries
 * its total in a top-level `meta`; from 2.2 on, dates are UTC; from 2.9 on, an empty to-one relationship is
 * `{data: null}` rather than left out.
 */
const API_VERSION = '2.20';
const ACCEPT = `application/vnd.api+json; version=${API_VERSION}`;
/** The page size of the listings the connector reads whole (walks, children): OSF's largest. */
const LISTING_PAGE_SIZE = 100;

type Query = Record<string, string | number | boolean | undefined>;

/**
 * OSF API v2 as one user reaches it: entities, pages of collections, and updates, all in JSON:API; and OSF's
 * file service, where the files' bytes are.
 */
export class OsfApi {
  readonly files: WaterButler;

  constructor(private readonly http: UpstreamClient) {
    this.files = new WaterButler(http);
  }

  /** One entity; `resourceId` names it in a 404. */
  async entity<T extends Entity<unknown>>(url: string, resourceId?: string): Promise<T> {
    const { data } = await this.http.json<{ data: T }>({ url, headers: { accept: ACCEPT } }, resourceId);
    return data.data;
  }

  /**
   * One page of a collection; null for a page past the last one, which OSF answers with 404 ("Invalid page")
   * when the collection itself exists.
   */
  async page<T>(url: string, query: Query & { page: number }): Promise<CollectionDocument<T> | null> {
    const response = await this.http.request({ url, query, headers: { accept: ACCEPT } });
    if (response.status === 404 && query.page > 1) {
      await response.body.dump();
      return null;
    }
    if (response.status >= 300) throw await this.http.failure(response);
    return readJson<CollectionDocument<T>>(response, this.http.upstream.name);
  }

  /** Every entity of a collection, page after page by the `next` links OSF gives, fetched as they are read. */
  async *all<T>(url: string, query: Query = {}): AsyncGenerator<T> {
    let next: string | null | undefined = url;
    // the first request sets the filters and the page size; OSF's next links carry them on
    let pageQuery: Query | undefined = { ...query, 'page[size]': LISTING_PAGE_SIZE };
    while (next) {
      const { data: page }: { data: CollectionDocument<T> } = await this.http.json<CollectionDocument<T>>({
        url: next,
        query: pageQuery,
        headers: { accept: ACCEPT },
      });
      yield* page.data;
      next = page.links?.next;
      pageQuery = undefined;
    }
  }

  /** Creates an entity in a collection (POST, answered 201 with the entity). */
  async create<T extends Entity<unknown>>(url: string, type: string, attributes: object): Promise<T> {
    const { data } = await this.http.json<{ data: T }>({
      method: 'POST',
      url,
      headers: { accept: ACCEPT },
      json: { data: { type, attributes } },
    });
    return data.data;
  }

  /** Deletes an entity; one gone already counts as deleted. */
  async remove(url: string): Promise<void> {
    await this.http.remove({ url, headers: { accept: ACCEPT } });
  }

  /** Sets some attributes of an entity (PATCH its `self` link) and answers the entity as stored. */
  async update<T extends Entity<unknown>>(entity: T, attributes: object): Promise<T> {
    const { data } = await this.http.json<{ data: T }>(
      {
        method: 'PATCH',
        url: link(entity, 'self'),
        headers: { accept: ACCEPT },
        json: { data: { type: entity.type, id: entity.id, attributes } },
        // setting the same attributes twice leaves the same entity
        idempotent: true,
      },
      entity.id,
    );
    return data.data;
  }
}
