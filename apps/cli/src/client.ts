import { CliError, EXIT, isAbort } from './errors';

export interface ApiRequest {
  method?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | number>;
  /** a stream body needs its length in `headers` (content-length) */
  body?: string | FormData | ReadableStream<Uint8Array>;
  /** the statuses that are answers rather than failures (default 200) */
  expect?: number[];
  signal?: AbortSignal;
}

export interface ApiResponse<T> {
  status: number;
  body: T;
}

/** The PresQT API over HTTP. Failures become CliErrors carrying the service's own message. */
export class PresqtClient {
  readonly server: string;

  constructor(server: string) {
    let url: URL;
    try {
      url = new URL(server);
    } catch {
      throw new CliError(`--server ${JSON.stringify(server)} is not a URL.`, EXIT.usage);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new CliError(`--server must be an http or https URL, not ${url.protocol}`, EXIT.usage);
    this.server = server.replace(/\/+$/, '');
  }

  /** A JSON answer, or a CliError when its status is not one of `expect`. */
  async json<T>(path: string, options: ApiRequest = {}): Promise<ApiResponse<T>> {
    const response = await this.send(path, options);
    const body = parseJson(await response.text());
    if (!(options.expect ?? [200]).includes(response.status)) throw httpError(response.status, body);
    return { status: response.status, body: body as T };
  }

  /** An answer whose body the caller streams (a zip); a status not in `expect` is thrown as by json(). */
  async stream(path: string, options: ApiRequest = {}): Promise<Response> {
    const response = await this.send(path, options);
    if (!(options.expect ?? [200]).includes(response.status))
      throw httpError(response.status, parseJson(await response.text()));
    return response;
  }

  /** Node's own fetch: it loads several times faster than the undici package, which counts for a command. */
  private async send(path: string, options: ApiRequest): Promise<Response> {
    const url = new URL(this.server + path);
    for (const [name, value] of Object.entries(options.query ?? {}))
      url.searchParams.set(name, String(value));
    try {
      return await fetch(url, {
        method: options.method ?? 'GET',
        headers: options.headers,
        body: options.body,
        signal: options.signal,
        // a stream body is sent as it is read (Node's fetch wants this said)
        ...(options.body instanceof ReadableStream ? { duplex: 'half' } : {}),
      });
    } catch (error) {
      if (isAbort(error)) throw error;
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const reason = cause?.code ?? cause?.message ?? (error as Error).message;
      throw new CliError(`Cannot reach the PresQT service at ${this.server}: ${reason}.`);
    }
  }
}

/** `/api_v1/targets/<target>/resources/` and, for a resource, `<id>` plus `suffix` (`.json/`, `.zip/`, `/`). */
export function resourcesPath(target: string, id?: string, suffix = '/'): string {
  const base = `/api_v1/targets/${encodeURIComponent(target)}/resources/`;
  return id === undefined ? base : `${base}${encodeURIComponent(id)}${suffix}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The service's `{"error": ...}` (or a job's `message`), with the status for scripts. */
function httpError(status: number, body: unknown): CliError {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const said =
    typeof fields.error === 'string'
      ? fields.error
      : typeof fields.message === 'string'
        ? fields.message
        : typeof body === 'string' && body.trim()
          ? body.trim().slice(0, 300)
          : 'no explanation given';
  return new CliError(`${said} (HTTP ${status})`, EXIT.failure, { http_status: status });
}
