import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import type { JobProgress, JobRecord } from './job-record';
import {
  cancelledMessage,
  cancellingMessage,
  JOB_KIND_DESCRIPTIONS,
  startedMessage,
  type JobKind,
  type JobStatus,
  type ResultOf,
} from '@app/job-kinds';
import { isRedisUnavailable, writeWhenBack } from './redis-unavailable';
import { ReplicaConfirmation } from './replica-confirmation';

/** Starts a run unless one is in progress: the one-job-per-kind-per-user rule, atomic in Redis (docs/behaviour.md#one-job-per-kind). */
const START = `
if redis.call('HGET', KEYS[1], 'status') == 'in_progress' then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1`;

/**
 * Updates a run that is still in progress. Progress counts never go down (docs/behaviour.md#job-status): a run taken over
 * after its worker died counts again from nothing, and shows the count the dead worker reached until it
 * passes it.
 */
const UPDATE = `
if redis.call('HGET', KEYS[1], 'run_id') ~= ARGV[1] then return 0 end
if redis.call('HGET', KEYS[1], 'status') ~= 'in_progress' then return 0 end
if redis.call('HEXISTS', KEYS[1], 'cancelling') == 1 then return 0 end
local counts = { job_percentage = true, files_finished = true, bytes_finished = true }
for i = 2, #ARGV, 2 do
  local value = ARGV[i + 1]
  if counts[ARGV[i]] then
    value = math.max(tonumber(value), tonumber(redis.call('HGET', KEYS[1], ARGV[i]) or '0'))
  end
  redis.call('HSET', KEYS[1], ARGV[i], value)
end
return 1`;

/**
 * Ends a run that is still in progress and lets its record (and checkpoints) expire: 1. A run the user is
 * cancelling ends only as cancelled (ARGV[3], the outcome's status): 2 refuses any other end. 0: not in progress.
 * The same end sent again (the worker sends again a command whose answer a failover lost; its fields, the time
 * included, are the same) answers 1 as the first did, so the worker does not take it for a cancel.
 */
const END = `
if redis.call('HGET', KEYS[1], 'run_id') ~= ARGV[1] then return 0 end
if redis.call('HGET', KEYS[1], 'status') ~= 'in_progress' then
  for i = 4, #ARGV, 2 do
    if redis.call('HGET', KEYS[1], ARGV[i]) ~= ARGV[i + 1] then return 0 end
  end
  return 1
end
if ARGV[3] ~= 'cancelled' and redis.call('HEXISTS', KEYS[1], 'cancelling') == 1 then return 2 end
for i = 4, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[2])
return 1`;

/**
 * A user's cancel of a run in progress (docs/behaviour.md#cancel): 1, the run goes on reading as in progress,
 * being cancelled (ARGV[3] its message), until the worker that holds it (KEYS[3], its lease) has taken back
 * what it wrote and ends it. A run no worker holds and none has checkpointed (still queued) wrote nothing:
 * 2, it ends cancelled at once (ARGV[4...], its fields). 0: not in progress, or committing (too late).
 */
const CANCEL = `
if redis.call('HGET', KEYS[1], 'run_id') ~= ARGV[1] then return 0 end
if redis.call('HGET', KEYS[1], 'status') ~= 'in_progress' then return 0 end
if redis.call('HEXISTS', KEYS[1], 'committing') == 1 then return 0 end
if redis.call('EXISTS', KEYS[2]) == 0 and redis.call('EXISTS', KEYS[3]) == 0 then
  for i = 4, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
  redis.call('EXPIRE', KEYS[1], ARGV[2])
  return 2
end
redis.call('HSET', KEYS[1], 'cancelling', '1', 'message', ARGV[3])
return 1`;

/** Records a checkpoint of the run that is still in progress. */
const CHECKPOINT = `
if redis.call('HGET', KEYS[1], 'run_id') ~= ARGV[1] then return 0 end
if redis.call('HGET', KEYS[1], 'status') ~= 'in_progress' then return 0 end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return 1`;

/**
 * The run's point of no return, just before it commits what it wrote at the target: unless the user is
 * cancelling it, it is marked committing, and a cancel comes too late from then on.
 */
const COMMIT = `
if redis.call('HGET', KEYS[1], 'run_id') ~= ARGV[1] then return 0 end
if redis.call('HGET', KEYS[1], 'status') ~= 'in_progress' then return 0 end
if redis.call('HEXISTS', KEYS[1], 'cancelling') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'committing', '1')
return 1`;

/** Holds a run's lease for `holder` when it is free or theirs already, for ARGV[2] milliseconds more. */
const HOLD = `
local current = redis.call('GET', KEYS[1])
if current and current ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

/** Gives a run's lease up, if `holder` still has it. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** What names one run of a job. */
type RunKey = Pick<JobRecord, 'kind' | 'ticket' | 'run_id'>;

export type JobEnd =
  | { status: 'finished'; message: string; result: ResultOf<JobKind> }
  | { status: 'failed'; statusCode: number; message: string }
  | { status: 'cancelled'; message: string };

/** How an attempt to end a run went: `cancelling` refused it, the user having asked to cancel the run. */
export type EndAnswer = 'ended' | 'cancelling' | 'over';

const END_ANSWERS: Record<number, EndAnswer> = { 0: 'over', 1: 'ended', 2: 'cancelling' };

/** How a run the user cancelled ends. */
export function cancelledEnd(kind: JobKind): JobEnd {
  return { status: 'cancelled', message: cancelledMessage(kind) };
}

const START_TIMED_OUT = {
  statusCode: 503,
  message: 'PresQT Error: the job could not be started: Redis did not answer in time.',
};

/** How often whenEnded looks. */
const ENDED_POLL_MS = 100;

/** The fields an end writes, as name, value, name, value... */
function endPairs(outcome: JobEnd): string[] {
  const fields = {
    ...endFields(outcome),
    status: outcome.status,
    message: outcome.message,
    ended_at: new Date().toISOString(),
  };
  return Object.entries(fields).flat();
}

/** The stored fields of each way a run can end (docs/behaviour.md#job-status). */
function endFields(outcome: JobEnd): Record<string, string> {
  switch (outcome.status) {
    case 'finished':
      return { status_code: '"200"', job_percentage: '100', result: JSON.stringify(outcome.result) };
    case 'failed':
      return { status_code: JSON.stringify(outcome.statusCode) };
    case 'cancelled':
      return { status_code: '"499"' };
  }
}

/**
 * Job records in Redis, shared by every API and worker process. Each state change is one Lua script, so
 * concurrent starts, cancels and finishes from different processes cannot interleave.
 */
export class JobStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
    /** confirms a job's end with a replica, where a replica may become the primary */
    private readonly confirmation = new ReplicaConfirmation(false, 0),
  ) {}

  /** Starts a new run; null when the user already has this kind of job in progress. */
  async start<K extends JobKind>(kind: K, ticket: string): Promise<JobRecord<K> | null> {
    const record: JobRecord<K> = {
      kind,
      ticket,
      run_id: randomUUID(),
      status: 'in_progress',
      status_code: null,
      message: startedMessage(kind),
      job_percentage: 0,
      files_total: 0,
      files_finished: 0,
      bytes_total: 0,
      bytes_finished: 0,
      result: JOB_KIND_DESCRIPTIONS[kind].openingResult(ticket),
      created_at: new Date().toISOString(),
      ended_at: null,
    };
    try {
      const started = await this.redis.eval(START, 2, ...this.keys(kind, ticket), ...toFields(record));
      return started === 1 ? record : null;
    } catch (error) {
      // A command that timed out still runs once Redis answers again, and one whose answer a lost connection
      // took may have run. Ending the run right behind it (on the same connection, or once it is back) keeps
      // a start the user was answered 503 for from holding their slot afterwards.
      if (isRedisUnavailable(error)) this.endFailedWhenBack(record, START_TIMED_OUT).catch(() => undefined);
      throw error;
    }
  }

  async get<K extends JobKind>(kind: K, ticket: string): Promise<JobRecord<K> | null> {
    const fields = await this.redis.hgetall(this.keys(kind, ticket)[0]);
    return fields.run_id ? (fromFields(fields) as JobRecord<K>) : null;
  }

  /**
   * Milliseconds until an ended run's record (and so its files) expires; null while the run is in progress
   * (no expiry yet) or when there is no record.
   */
  async expiresInMs(kind: JobKind, ticket: string): Promise<number | null> {
    const remaining = await this.redis.pttl(this.keys(kind, ticket)[0]);
    return remaining > 0 ? remaining : null;
  }

  /** False when the run is no longer the current one in progress (cancelled, or superseded). */
  async update(
    record: Pick<JobRecord, 'kind' | 'ticket' | 'run_id'>,
    changes: Partial<JobProgress> & { message?: string; job_percentage?: number },
  ): Promise<boolean> {
    const pairs = Object.entries(changes).flatMap(([key, value]) => [key, String(value)]);
    if (pairs.length === 0) return true;
    return (
      (await this.redis.eval(
        UPDATE,
        1,
        this.keys(record.kind, record.ticket)[0],
        record.run_id,
        ...pairs,
      )) === 1
    );
  }

  /**
   * Ends the run as `outcome` when it is still in progress: `over` when it had ended already, `cancelling` when
   * the user is cancelling it, which only a cancelled outcome ends (a run that finished must take back what it
   * wrote first).
   */
  async end(record: RunKey, outcome: JobEnd): Promise<EndAnswer> {
    const answer = await this.redis.eval(
      END,
      2,
      ...this.keys(record.kind, record.ticket),
      record.run_id,
      this.ttlSeconds,
      outcome.status,
      ...endPairs(outcome),
    );
    const ended = END_ANSWERS[Number(answer)];
    if (ended === 'ended') await this.confirmation.confirm(this.redis);
    return ended;
  }

  /**
   * Ends a run that failed; as cancelled when the user is cancelling it (what it wrote is taken back already):
   * they were told it would be. Answers the end recorded, null when the run had ended already.
   */
  async endFailed(record: RunKey, failure: { statusCode: number; message: string }): Promise<JobEnd | null> {
    const failed: JobEnd = { status: 'failed', ...failure };
    const answer = await this.end(record, failed);
    if (answer === 'ended') return failed;
    if (answer === 'over') return null;
    const cancelled = cancelledEnd(record.kind);
    return (await this.end(record, cancelled)) === 'ended' ? cancelled : null;
  }

  /** Ends a run that failed (endFailed) now, or, when Redis does not answer, as soon as the connection is back. */
  endFailedWhenBack(record: RunKey, failure: { statusCode: number; message: string }): Promise<void> {
    return writeWhenBack(this.redis, () => this.endFailed(record, failure));
  }

  /**
   * Cancels the user's run if it is in progress (docs/behaviour.md#cancel). The worker that holds it notices
   * within a second, takes back what it wrote, and only then ends it as cancelled: until then it reads as in
   * progress, being cancelled. A run still queued ends at once; one committing its writes (beginCommit) is past
   * cancelling. Answers whether the cancel was taken, and the record after it.
   */
  async cancel<K extends JobKind>(
    kind: K,
    ticket: string,
  ): Promise<{ accepted: boolean; record: JobRecord<K> | null }> {
    const current = await this.get(kind, ticket);
    if (!current) return { accepted: false, record: null };
    const answer = await this.redis.eval(
      CANCEL,
      3,
      ...this.keys(kind, ticket),
      this.leaseKey(current),
      current.run_id,
      this.ttlSeconds,
      cancellingMessage(kind),
      ...endPairs(cancelledEnd(kind)),
    );
    return { accepted: answer !== 0, record: await this.get(kind, ticket) };
  }

  /** The run's record once it has ended, or after `timeoutMs` (still in progress then); null when it is gone. */
  async whenEnded<K extends JobKind>(record: JobRecord<K>, timeoutMs: number): Promise<JobRecord<K> | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const current = await this.get(record.kind, record.ticket);
      if (current?.run_id !== record.run_id || current.status !== 'in_progress' || Date.now() >= deadline)
        return current;
      await new Promise((resolve) => setTimeout(resolve, ENDED_POLL_MS));
    }
  }

  /**
   * Passes the run's point of no return, just before it commits its writes at the target (which a connector
   * cannot always take back whole afterwards): from then on a cancel is refused as too late. False when the
   * user is cancelling the run (or it is no longer the current one in progress): it must not commit.
   */
  async beginCommit(record: RunKey): Promise<boolean> {
    const key = this.keys(record.kind, record.ticket)[0];
    return (await this.redis.eval(COMMIT, 1, key, record.run_id)) === 1;
  }

  /** Remembers that one unit of work (a file) of the run is done, so a resumed run can skip it. */
  async checkpoint(
    record: Pick<JobRecord, 'kind' | 'ticket' | 'run_id'>,
    item: string,
    data: unknown,
  ): Promise<boolean> {
    const keys = this.keys(record.kind, record.ticket);
    return (await this.redis.eval(CHECKPOINT, 2, ...keys, record.run_id, item, JSON.stringify(data))) === 1;
  }

  async checkpoints<T>(record: Pick<JobRecord, 'kind' | 'ticket'>): Promise<Map<string, T>> {
    const fields = await this.redis.hgetall(this.keys(record.kind, record.ticket)[1]);
    return new Map(Object.entries(fields).map(([item, data]) => [item, JSON.parse(data) as T]));
  }

  /**
   * Takes or renews the lease on carrying out a run: one worker at a time does, even when Bull hands the
   * same job to a second worker (a lock renewal that came late). False while another holder has it; a holder
   * that dies loses it after `ttlMs`.
   */
  async holdRun(record: RunKey, holder: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.eval(HOLD, 1, this.leaseKey(record), holder, Math.ceil(ttlMs))) === 1;
  }

  async releaseRun(record: RunKey, holder: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.leaseKey(record), holder);
  }

  /** Every run still in progress, found by scanning (for the janitor; never on a request's path). */
  async *inProgress(): AsyncIterable<JobRecord> {
    const stream = this.redis.scanStream({ match: `${this.prefix}:job:*`, count: 500 });
    for await (const keys of stream as AsyncIterable<string[]>) {
      for (const key of keys) {
        if (key.endsWith(':checkpoints') || key.includes(':runner:')) continue;
        const fields = await this.redis.hgetall(key);
        if (fields.status === 'in_progress') yield fromFields(fields);
      }
    }
  }

  private leaseKey(record: RunKey): string {
    return `${this.keys(record.kind, record.ticket)[0]}:runner:${record.run_id}`;
  }

  private keys(kind: JobKind, ticket: string): [string, string] {
    const key = `${this.prefix}:job:${kind}:${ticket}`;
    return [key, `${key}:checkpoints`];
  }
}

function toFields(record: JobRecord): string[] {
  return Object.entries(record).flatMap(([key, value]) => [
    key,
    key === 'result' || key === 'status_code' ? JSON.stringify(value) : String(value ?? ''),
  ]);
}

function fromFields(fields: Record<string, string>): JobRecord {
  const number = (key: string) => Number(fields[key] ?? 0);
  return {
    kind: fields.kind as JobKind,
    ticket: fields.ticket ?? '',
    run_id: fields.run_id ?? '',
    status: fields.status as JobStatus,
    status_code: JSON.parse(fields.status_code ?? 'null') as string | number | null,
    message: fields.message ?? '',
    job_percentage: number('job_percentage'),
    files_total: number('files_total'),
    files_finished: number('files_finished'),
    bytes_total: number('bytes_total'),
    bytes_finished: number('bytes_finished'),
    result: JSON.parse(fields.result ?? '{}') as JobRecord['result'],
    created_at: fields.created_at ?? '',
    ended_at: fields.ended_at || null,
    ...(fields.cancelling ? { cancelling: true } : {}),
  };
}
