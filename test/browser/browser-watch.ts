import type { Page, Request } from 'playwright-core';

/**
 * What a step expects to be answered with an error status, e.g. a cancelled job's poll answering 500; status 0
 * for a request the page itself cuts short.
 */
export interface ExpectedError {
  status: number;
  path: RegExp;
}

/**
 * Everything the page did that a user would notice going wrong: console errors, requests that failed at the
 * network level, and answers with an error status. Each step asserts that nothing of it happened beyond what
 * the step expects, then starts afresh.
 */
export class BrowserWatch {
  private readonly calls: string[] = [];
  private readonly consoleErrors: string[] = [];
  private readonly failedRequests: { call: string; reason: string }[] = [];
  private readonly errorAnswers: { status: number; call: string }[] = [];
  private readonly pending = new Set<Request>();

  constructor(
    page: Page,
    private readonly apiOrigin: string,
  ) {
    // The page calls two outside services itself, which this machine cannot reach: Google Fonts, and
    // FAIRshake's public score list for the insignia it draws after an assessment. They are answered empty.
    void page.route(/^https:\/\/fonts\.(googleapis|gstatic)\.com\//, (route) =>
      route.fulfill({ status: 200, contentType: 'text/css', body: '' }),
    );
    void page.route(/^https:\/\/fairshake\.cloud\/score\//, (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({ scores: {}, metrics: {} }),
      }),
    );
    page.on('console', (message) => {
      if (message.type() === 'error') this.consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => this.consoleErrors.push(`uncaught: ${error.message}`));
    page.on('request', (request) => {
      if (!this.isApi(request)) return;
      this.pending.add(request);
      this.calls.push(this.describe(request));
    });
    page.on('requestfinished', (request) => void this.finished(request));
    page.on('requestfailed', (request) => {
      this.pending.delete(request);
      this.failedRequests.push({
        call: this.describe(request),
        reason: request.failure()?.errorText ?? 'failed',
      });
    });
  }

  /** `METHOD /path?query` of each API request since the last check, in order. */
  apiCalls(): string[] {
    return [...this.calls];
  }

  /** Resolves once no API request has been open for `quietMs`. */
  async settled(quietMs = 400, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let quietSince = Date.now();
    while (Date.now() - quietSince < quietMs) {
      if (Date.now() > deadline)
        throw new Error(
          `API requests still open: ${[...this.pending].map((r) => this.describe(r)).join(', ')}`,
        );
      if (this.pending.size > 0) quietSince = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * Fails on any console error, failed request or error answer the step did not expect; then forgets them.
   * The browser itself logs each error answer to the console ("Failed to load resource: ... status of 500"),
   * so an expected error answer excuses that one line.
   */
  expectClean(expected: ExpectedError[] = []): void {
    const isExpected = (status: number, call: string) =>
      expected.some((allowed) => allowed.status === status && allowed.path.test(call));
    const unexpectedAnswers = this.errorAnswers.filter(({ status, call }) => !isExpected(status, call));
    const consoleErrors = this.consoleErrors.filter((text) => {
      const status = /Failed to load resource: the server responded with a status of (\d+)/.exec(text)?.[1];
      return status === undefined || !expected.some((allowed) => allowed.status === Number(status));
    });
    // a request cut short by leaving the page counts as status 0
    const failedRequests = this.failedRequests.filter(({ call }) => !isExpected(0, call));
    const problems = [
      ...consoleErrors.map((text) => `console error: ${text}`),
      ...failedRequests.map(({ call, reason }) => `request failed: ${call}: ${reason}`),
      ...unexpectedAnswers.map(({ status, call }) => `answered ${status}: ${call}`),
    ];
    this.calls.length = 0;
    this.consoleErrors.length = 0;
    this.failedRequests.length = 0;
    this.errorAnswers.length = 0;
    if (problems.length > 0) throw new Error(`The page met problems:\n${problems.join('\n')}`);
  }

  private async finished(request: Request): Promise<void> {
    const response = await request.response();
    if (response && response.status() >= 400)
      this.errorAnswers.push({ status: response.status(), call: this.describe(request) });
    this.pending.delete(request);
  }

  private isApi(request: Request): boolean {
    return request.url().startsWith(this.apiOrigin);
  }

  private describe(request: Request): string {
    const url = new URL(request.url());
    return `${request.method()} ${url.pathname}${url.search}`;
  }
}
