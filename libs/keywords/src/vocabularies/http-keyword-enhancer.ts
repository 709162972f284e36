import { Logger } from '@nestjs/common';
import {
  newTerms,
  type Enhancement,
  type EnhancementContext,
  type KeywordEnhancer,
} from '../keyword-enhancer';
import { normalizeKeywords } from '../normalize-keywords';
import { glossTokens } from '../wordnet/gloss-tokens';
import { ServiceUnavailable, type JsonClient, type VocabularyService } from './vocabulary-service';

/** requests in flight at once for one enhancement, so a long keyword list does not flood the service */
const CONCURRENT_REQUESTS = 4;

export interface HttpVocabularyOptions {
  /** the service's base URL; credentials in it are sent as Basic authorization, a query with every request */
  url: string;
  /** the longest one enhancement may take, all its requests together, before the fallback answers instead */
  timeoutMs: number;
}

/**
 * An enhancer backed by a vocabulary service over HTTP (`service` says which requests to make). All requests of
 * one enhancement share one deadline; when the service is down, slow or answers something unexpected, one
 * warning naming it is logged and the `fallback` enhancer (the embedded one) answers instead, so keywords are
 * still enhanced.
 */
export class HttpKeywordEnhancer implements KeywordEnhancer {
  readonly name: string;
  private readonly logger = new Logger('KeywordEnhancer');
  /** the base URL without credentials; a query it has (such as an API key) is sent with every request */
  private readonly baseUrl: URL;
  /** the base URL's path without its trailing slashes ('' at the root) */
  private readonly basePath: string;
  /** Basic credentials given in the URL: fetch refuses URLs that carry them */
  private readonly authorization: string | undefined;
  /** the base URL without credentials or query, for logs */
  private readonly displayUrl: string;

  constructor(
    private readonly service: VocabularyService,
    private readonly options: HttpVocabularyOptions,
    private readonly fallback: KeywordEnhancer,
  ) {
    this.name = service.name;
    this.baseUrl = new URL(options.url);
    const { username, password } = this.baseUrl;
    if (username || password) {
      const credentials = `${decodeURIComponent(username)}:${decodeURIComponent(password)}`;
      this.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
      this.baseUrl.username = '';
      this.baseUrl.password = '';
    }
    this.basePath = this.baseUrl.pathname.replace(/\/+$/, '');
    this.displayUrl = this.baseUrl.origin + this.basePath;
  }

  async enhance(keywords: string[], context: EnhancementContext = {}): Promise<Enhancement> {
    const input = normalizeKeywords(keywords);
    if (input.length === 0) return { terms: [], enhancer: this.name };
    const stop = new AbortController();
    const signal = AbortSignal.any([stop.signal, AbortSignal.timeout(this.options.timeoutMs)]);
    const http = this.client(signal);
    try {
      const termsPerKeyword = await mapLimited(input, CONCURRENT_REQUESTS, (keyword) => {
        const others = input.filter((other) => other !== keyword).join(' ');
        const words = new Set(glossTokens(`${others} ${context.title ?? ''}`));
        return this.service.termsFor(keyword, http, { words });
      });
      return { terms: newTerms(input, termsPerKeyword), enhancer: this.name };
    } catch (error) {
      this.logger.warn(
        `The keyword enhancement service at ${this.displayUrl} ${this.describe(error)}; ` +
          `the embedded enhancer answers instead.`,
      );
      return this.fallback.enhance(input, context);
    } finally {
      // the first failure ends the enhancement: stop the requests still running
      stop.abort();
    }
  }

  private client(signal: AbortSignal): JsonClient {
    return {
      get: async (path, query = {}) => {
        const url = new URL(this.baseUrl);
        url.pathname = `${this.basePath}${path}`;
        for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
        const headers: Record<string, string> = { accept: 'application/json' };
        if (this.authorization) headers.authorization = this.authorization;
        const response = await fetch(url, { headers, signal });
        if (response.status === 404) {
          await response.body?.cancel();
          return undefined;
        }
        if (!response.ok) {
          await response.body?.cancel();
          throw new ServiceUnavailable(`answered HTTP ${response.status}`);
        }
        try {
          return JSON.parse(await response.text()) as unknown;
        } catch (error) {
          if ((error as Error).name !== 'SyntaxError') throw error;
          throw new ServiceUnavailable('answered something other than JSON');
        }
      },
    };
  }

  private describe(error: unknown): string {
    if (error instanceof ServiceUnavailable) return error.message;
    const reason = error as Error & { cause?: { code?: string; message?: string } };
    if (reason.name === 'TimeoutError') return `did not answer within ${this.options.timeoutMs} ms`;
    return `could not be reached (${reason.cause?.code ?? reason.cause?.message ?? reason.message})`;
  }
}

/** `work` applied to each item with at most `limit` running at once; results in the order of `items`. */
async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const at = next++;
      results[at] = await work(items[at]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
