import { Counter } from 'prom-client';

// Kept beside the one HTTP client of the connectors rather than in libs/observability, which depends on the
// targets and so on the connectors; prom-client's default registry serves them at /metrics all the same.

export const upstreamRequests = new Counter({
  name: 'presqt_upstream_requests_total',
  help: 'Requests to remote repositories, by repository, method and final status (error: no answer)',
  labelNames: ['upstream', 'method', 'status'] as const,
});

export const upstreamRetries = new Counter({
  name: 'presqt_upstream_retries_total',
  help: 'Attempts repeated after a 429, a 5xx or a dropped connection, by repository',
  labelNames: ['upstream'] as const,
});
