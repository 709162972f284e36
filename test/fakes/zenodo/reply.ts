import type { Readable } from 'node:stream';
import type { FakeAnswer } from '../fake-server';

/**
 * An answer of the fake Zenodo: every one carries the rate-limit headers Zenodo sends
 * (https://developers.zenodo.org/#rate-limiting), and errors have Zenodo's error body
 * (https://developers.zenodo.org/#errors: `message`, `status`, and `errors` for a validation error).
 */
export class Reply {
  constructor(
    private readonly answer: FakeAnswer,
    private readonly rateHeaders: Record<string, string>,
  ) {}

  json(status: number, body: unknown): void {
    this.answer.json(status, body, this.rateHeaders);
  }

  error(status: number, message: string, errors?: { field: string; message: string }[]): void {
    this.answer.json(status, { message, status, ...(errors ? { errors } : {}) }, this.rateHeaders);
  }

  empty(status: number, headers: Record<string, string> = {}): void {
    this.answer.empty(status, { ...this.rateHeaders, ...headers });
  }

  /** File bytes, with Range requests honoured (InvenioRDM sends files as conditional responses). */
  send(
    content: Buffer | { size: number; open(start: number): Readable },
    headers: Record<string, string>,
  ): Promise<void> {
    return this.answer.send(200, content, { ...this.rateHeaders, ...headers }, true);
  }
}

/** A fixed window of requests per token (or per guest), as Zenodo's limiter counts them. */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; used: number }>();

  constructor(
    public limit: number,
    public windowMs: number,
  ) {}

  /** Counts a request of `caller`; the headers to send and whether the request may proceed. */
  take(caller: string): { allowed: boolean; headers: Record<string, string> } {
    const now = Date.now();
    let window = this.windows.get(caller);
    if (!window || now >= window.start + this.windowMs) {
      window = { start: now, used: 0 };
      this.windows.set(caller, window);
    }
    const allowed = window.used < this.limit;
    if (allowed) window.used++;
    const resetMs = window.start + this.windowMs;
    const headers: Record<string, string> = {
      'x-ratelimit-limit': String(this.limit),
      'x-ratelimit-remaining': String(this.limit - window.used),
      'x-ratelimit-reset': String(Math.ceil(resetMs / 1000)),
    };
    if (!allowed) headers['retry-after'] = String(Math.max(1, Math.ceil((resetMs - now) / 1000)));
    return { allowed, headers };
  }

  clear(): void {
    this.windows.clear();
  }
}
