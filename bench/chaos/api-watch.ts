/** One answer of the API to a request that needs Redis. */
interface Answer {
  /** when it was sent (Date.now()) */
  at: number;
  /** 0: no answer (a dropped connection, or none within the probe's timeout) */
  status: number;
  ms: number;
}

/** What the API answered while Redis was away: each stretch of 503s, and the slowest answer of all. */
export interface OutageAnswers {
  /** how long each stretch of 503s (or no answers) lasted, in seconds, from its first to its first other answer */
  stretches: number[];
  slowestMs: number;
  /** answers other than 503 or what a healthy API answers, by status */
  unexpected: Map<number, number>;
}

const PROBE_EVERY_MS = 200;
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Asks the API every 200 ms for a job's status (a Redis read: 404 for a user without jobs, 503 while Redis is
 * away), as a client polling its job would, until stopped; then tells how long each outage lasted for the
 * client and how long its slowest answer took.
 */
export function watchApi(baseUrl: string): { stop(): OutageAnswers } {
  const answers: Answer[] = [];
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      const at = Date.now();
      const status = await fetch(`${baseUrl}/api_v1/job_status/download.json/`, {
        headers: { 'presqt-source-token': 'chaos-probe-token-without-jobs' },
        signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      }).then(
        async (answer) => (await answer.arrayBuffer(), answer.status),
        () => 0,
      );
      answers.push({ at, status, ms: Date.now() - at });
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, PROBE_EVERY_MS - (Date.now() - at))));
    }
  };
  const running = loop();
  return {
    stop() {
      stopped = true;
      void running.catch(() => undefined);
      return summarise(answers);
    },
  };
}

function summarise(answers: Answer[]): OutageAnswers {
  const stretches: number[] = [];
  const unexpected = new Map<number, number>();
  let since: number | null = null;
  for (const { at, status } of answers) {
    const away = status === 503 || status === 0;
    if (away && since === null) since = at;
    if (!away && since !== null) {
      stretches.push((at - since) / 1000);
      since = null;
    }
    if (!away && status !== 404) unexpected.set(status, (unexpected.get(status) ?? 0) + 1);
  }
  if (since !== null) stretches.push((answers[answers.length - 1].at - since) / 1000);
  const slowestMs = Math.max(0, ...answers.map(({ ms }) => ms));
  return { stretches, slowestMs, unexpected };
}
