import { Counter, Gauge, Histogram, register } from 'prom-client';

/**
 * Every metric the API and the worker expose at /metrics, in prom-client's default registry. Labels are
 * bounded sets (route patterns, job kinds, target and repository names, status codes): never a token, a
 * user, a resource id or a raw path.
 */
export const metricsRegistry = register;

export const httpRequests = new Counter({
  name: 'presqt_http_requests_total',
  help: 'HTTP requests answered, by method, route pattern and status',
  labelNames: ['method', 'route', 'status'] as const,
});

export const httpRequestDuration = new Histogram({
  name: 'presqt_http_request_duration_seconds',
  help: 'Time from a request to the end of its answer, by method, route pattern and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
});

export const jobsStarted = new Counter({
  name: 'presqt_jobs_started_total',
  help: 'Jobs the API accepted (202), by kind and target',
  labelNames: ['kind', 'target'] as const,
});

export const jobsEnded = new Counter({
  name: 'presqt_jobs_ended_total',
  help: 'Job runs a worker ended, by kind, target and outcome (finished, failed, cancelled)',
  labelNames: ['kind', 'target', 'outcome'] as const,
});

export const jobDuration = new Histogram({
  name: 'presqt_job_duration_seconds',
  help: "Time a worker spent on a job's run, by kind and outcome",
  labelNames: ['kind', 'outcome'] as const,
  buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 4 * 3600],
});

export const bytesMoved = new Counter({
  name: 'presqt_job_bytes_moved_total',
  help: 'Bytes jobs read from a source or wrote to a destination, by kind',
  labelNames: ['kind'] as const,
});

export const filesMoved = new Counter({
  name: 'presqt_job_files_moved_total',
  help: 'Files jobs finished moving, by kind',
  labelNames: ['kind'] as const,
});

export const fixityFailures = new Counter({
  name: 'presqt_fixity_failures_total',
  help: 'Files whose checksums did not match, by job kind and target',
  labelNames: ['kind', 'target'] as const,
});

export const jobsRunning = new Gauge({
  name: 'presqt_jobs_running',
  help: 'Job runs this worker process is carrying out, by kind',
  labelNames: ['kind'] as const,
});
