import { Logger } from '@nestjs/common';
import { newTerms, pickTerms, type KeywordEnhancer } from './keyword-enhancer';
import { normalizeKeywords } from './normalize-keywords';

/** requests in flight at once for one enhancement, so a long keyword list does not flood the service */
const CONCURRENT_REQUESTS = 4;
/** concepts asked for per keyword (SciGraph's `limit`; its default is 20) */
const CONCEPTS_PER_KEYWORD = 10;
const TERMS_PER_KEYWORD = 6;

export interface SciGraphOptions {
  /** the service's base URL, e.g. https://scigraph.example.org/scigraph */
  url: string;
  /** the longest one enhancement may take, all its requests together */
  timeoutMs: number;
}

/** The parts of a SciGraph concept (ConceptDTO) used here; every field may be missing from a foreign answer. */
interface Concept {
  labels?: unknown;
  synonyms?: unknown;
  deprecated?: unknown;
}

/** A failure of the service itself, as opposed to a keyword it does not know. */
class ServiceUnavailable extends Error {}

/**
 * Enhancer backed by a SciGraph vocabulary service: `GET <base>/vocabulary/term/<keyword>` answers the concepts
 * whose label or synonym matches the keyword; their labels and synonyms are the new terms. SciGraph answers 404
 * when it has no concept for a keyword. When the service is down, slow or answers something else, the
 * enhancement gives no terms (the caller's keywords still work) and one warning is logged.
 */
export class SciGraphKeywordEnhancer implements KeywordEnhancer {
  readonly name = 'scigraph';
  private readonly logger = new Logger('KeywordEnhancer');
  /** the base URL without credentials; a query it has (such as an API key) is sent with every request */
  private readonly baseUrl: URL;
  /** the base URL's path without its trailing slashes ('' at the root) */
  private readonly basePath: string;
  /** Basic credentials given in the URL: fetch refuses URLs that carry them */
  private readonly authorization: string | undefined;
  /** the base URL without credentials or query, for logs */
  private readonly displayUrl: string;

  constructor(private readonly options: SciGraphOptions) {
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

  async enhance(keywords: string[]): Promise<string[]> {
    const input = normalizeKeywords(keywords);
    if (input.length === 0) return [];
    const stop = new AbortController();
    const signal = AbortSignal.any([stop.signal, AbortSignal.timeout(this.options.timeoutMs)]);
    try {
      const termsPerKeyword = await mapLimited(input, CONCURRENT_REQUESTS, (keyword) =>
        this.termsFor(keyword, signal),
      );
      return newTerms(input, termsPerKeyword);
    } catch (error) {
      this.logger.warn(
        `The keyword enhancement service at ${this.displayUrl} ${this.describe(error)}; keywords are not enhanced.`,
      );
      return [];
    } finally {
      // the first failure ends the enhancement: stop the requests still running
      stop.abort();
    }
  }

  private async termsFor(keyword: string, signal: AbortSignal): Promise<string[]> {
    const url = new URL(this.baseUrl);
    url.pathname = `${this.basePath}/vocabulary/term/${encodeURIComponent(keyword)}`;
    url.searchParams.set('limit', String(CONCEPTS_PER_KEYWORD));
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.authorization) headers.authorization = this.authorization;
    const response = await fetch(url, { headers, signal });
    if (response.status === 404) {
      await response.body?.cancel();
      return [];
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new ServiceUnavailable(`answered HTTP ${response.status}`);
    }
    const concepts = parseJson(await response.text());
    if (!Array.isArray(concepts)) throw new ServiceUnavailable('answered something other than a JSON array');
    const candidates = (concepts as Concept[])
      .filter((concept) => typeof concept === 'object' && concept !== null && concept.deprecated !== true)
      .flatMap((concept) => [...sortedTerms(concept.labels), ...sortedTerms(concept.synonyms)]);
    return pickTerms(candidates, keyword, TERMS_PER_KEYWORD);
  }

  private describe(error: unknown): string {
    if (error instanceof ServiceUnavailable) return error.message;
    const reason = error as Error & { cause?: { code?: string; message?: string } };
    if (reason.name === 'TimeoutError') return `did not answer within ${this.options.timeoutMs} ms`;
    return `could not be reached (${reason.cause?.code ?? reason.cause?.message ?? reason.message})`;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** SciGraph sends labels and synonyms as sets: sorting makes the choice independent of their order. */
function sortedTerms(value: unknown): string[] {
  const texts = Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  return normalizeKeywords(texts).sort();
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
