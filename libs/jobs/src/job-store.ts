import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { inProgress, JOB_STATE_MOVES, type JobProgress, type JobRecord, type JobState } from './job-record';
import {
  cancelledMessage,
  cancellingMessage,
  startedMessage,
  type JobKind,
  type ResultOf,
} from '@app/job-kinds';
import { isRedisUnavailable, writeWhenBack } from './redis-unavailable';
import { ReplicaConfirmation } from './replica-confirmation';
import { CANCEL, CHECKPOINT, END, GET, HOLD, MOVE, RELEASE, START, UPDATE } from './job-store-scripts';

/** What names one run of a job. */
type RunKey = Pick<JobRecord, 'kind' | 'ticket' | 'runId'>;

/** Why a run failed: the status code it reports (the target's own for its errors, else 500) and a message. */
export interface JobFailure {
  failureCode: number;
  message: string;
}

/** How a run ends. */
export type JobEnd =
  | { state: 'finished'; message: string; result: ResultOf<JobKind> }
  | ({ state: 'failed' } & JobFailure)
  | { state: 'cancelled'; message: string };

/**
 * How an attempt to end a run went: `refused` when the run is in progress but may not end so (the user is
 * cancelling it: it ends only as cancelled), `over` when it had ended already (or is another run).
 */
export type EndAnswer = 'ended' | 'refused' | 'over';

const END_ANSWERS: Record<number, EndAnswer> = { 0: 'over', 1: 'ended', 2: 'refused' };

/** How a run the user cancelled ends. */
export function cancelledEnd(kind: JobKind): JobEnd {
  return { state: 'cancelled', message: cancelledMessage(kind) };
}

const START_TIMED_OUT: JobFailure = {
  failureCode: 503,
  message: 'PresQT Error: the job could not be started: Redis did not answer in time.',
};

/** How often whenEnded looks. */
const ENDED_POLL_MS = 100;
/** the most checkpoints one call records: two script arguments each, well within what Redis's Lua unpacks */
export const MAX_CHECKPOINTS = 1000;

/** The states a script acts from (see job-store-scripts.ts): every state a job may move to `to` from. */
function statesBefore(to: JobState): string {
  return JOB_STATES.filter((from) => JOB_STATE_MOVES[from].includes(to)).join(' ');
}

const JOB_STATES = Object.keys(JOB_STATE_MOVES) as JobState[];
const IN_PROGRESS = JOB_STATES.filter(inProgress).join(' ');
/** A run reports progress while it may still finish. */
const REPORTING = statesBefore('finished');
/** A run that passed its point of no return and was handed back commits again when resumed. */
const COMMITTING_FROM = `${statesBefore('committing')} committing`;

/**
 * The progress counts that never go down (docs/behaviour.md#job-status): a run taken over after its worker
 * died counts again from nothing, and shows the count the dead worker reached until it passes it.
 */
const GROWING: ReadonlySet<string> = new Set<keyof JobProgress>(['filesDone', 'bytesDone', 'percent']);

/** The fields an end writes, as name, value, name, value... */
function endPairs(end: JobEnd): string[] {
  const fields: Record<string, string> = {
    state: end.state,
    message: end.message,
    endedAt: new Date().toISOString(),
  };
  if (end.state === 'finished') Object.assign(fields, { percent: '100', result: JSON.stringify(end.result) });
  if (end.state === 'failed') fields.failureCode = String(end.failureCode);
  return Object.entries(fields).flat();
}

/** A Lua script defined on a connection: sent by its SHA1, its text only where the server lacks it. */
type ScriptCall = (numberOfKeys: number, ...args: (string | number)[]) => Promise<unknown>;

const SCRIPTS = { CANCEL, CHECKPOINT, END, GET, HOLD, MOVE, RELEASE, START, UPDATE };

/**
 * Job records in Redis, shared by every API and worker process. Each change of a job is one Lua script
 * (job-store-scripts.ts), so concurrent starts, cancels and ends from different processes cannot interleave;
 * the moves between a job's states are JOB_STATE_MOVES.
 */
export class JobStore {
  private readonly scripts = new Map<string, ScriptCall>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
    /** confirms a job's end with a replica, where a replica may become the primary */
    private readonly confirmation = new ReplicaConfirmation(false, 0),
  ) {
    // ioredis's defineCommand sends EVALSHA, and EVAL where the server answers NOSCRIPT (a new primary after a
    // failover): an EVAL sent each script's 2 KB of text with every call (a checkpoint a file, every progress
    // write and status read), which the worker wrote and Redis hashed each time
    for (const [name, lua] of Object.entries(SCRIPTS)) {
      const command = `presqtJob${name}`;
      redis.defineCommand(command, { lua });
      const call = (redis as unknown as Record<string, ScriptCall>)[command];
      this.scripts.set(lua, call.bind(redis));
    }
  }

  /** Runs one of the job-store-scripts.ts scripts. */
  private eval(lua: string, numberOfKeys: number, ...args: (string | number)[]): Promise<unknown> {
    return this.scripts.get(lua)!(numberOfKeys, ...args);
  }

  /** Starts a new run; null when the user already has this kind of job in progress. */
  async start<K extends JobKind>(kind: K, ticket: string): Promise<JobRecord<K> | null> {
    const record: JobRecord<K> = {
      kind,
      ticket,
      runId: randomUUID(),
      state: 'running',
      message: startedMessage(kind),
      filesTotal: 0,
      filesDone: 0,
      bytesTotal: 0,
      bytesDone: 0,
      percent: 0,
      failureCode: null,
      result: null,
      createdAt: new Date().toISOString(),
      endedAt: null,
    };
    try {
      const keys = this.keys(kind, ticket);
      const started = await this.eval(START, 2, ...keys, IN_PROGRESS, ...toFields(record));
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
    return (await this.read(this.keys(kind, ticket)[0])) as JobRecord<K> | null;
  }

  /**
   * Milliseconds until an ended run's record (and so its files) expires; null while the run is in progress
   * (no expiry yet) or when there is no record.
   */
  async expiresInMs(kind: JobKind, ticket: string): Promise<number | null> {
    const remaining = await this.redis.pttl(this.keys(kind, ticket)[0]);
    return remaining > 0 ? remaining : null;
  }

  /** Writes a run's progress; false when the run is no longer one that may finish (cancelled, or superseded). */
  async update(record: RunKey, changes: Partial<JobProgress> & { message?: string }): Promise<boolean> {
    const entries = Object.entries(changes).filter(([, value]) => value !== undefined);
    if (entries.length === 0) return true;
    const growing = entries.filter(([name]) => GROWING.has(name));
    const pairs = [...growing, ...entries.filter(([name]) => !GROWING.has(name))].flatMap(([name, value]) => [
      name,
      String(value),
    ]);
    const key = this.keys(record.kind, record.ticket)[0];
    return (await this.eval(UPDATE, 1, key, record.runId, REPORTING, growing.length, ...pairs)) === 1;
  }

  /**
   * Ends the run as `end` when it may end so (JOB_STATE_MOVES): `refused` while the user is cancelling it,
   * which only a cancelled end ends (a run that finished must take back what it wrote first), `over` when it
   * had ended already.
   */
  async end(record: RunKey, end: JobEnd): Promise<EndAnswer> {
    const answer = await this.eval(
      END,
      2,
      ...this.keys(record.kind, record.ticket),
      record.runId,
      statesBefore(end.state),
      this.ttlSeconds,
      IN_PROGRESS,
      ...endPairs(end),
    );
    const ended = END_ANSWERS[Number(answer)];
    if (ended === 'ended') await this.confirmation.confirm(this.redis);
    return ended;
  }

  /**
   * Ends a run that failed; as cancelled when the user is cancelling it (what it wrote is taken back already):
   * they were told it would be. Answers the end recorded, null when the run had ended already.
   */
  async endFailed(record: RunKey, failure: JobFailure): Promise<JobEnd | null> {
    const failed: JobEnd = { state: 'failed', ...failure };
    const answer = await this.end(record, failed);
    if (answer === 'ended') return failed;
    if (answer === 'over') return null;
    const cancelled = cancelledEnd(record.kind);
    return (await this.end(record, cancelled)) === 'ended' ? cancelled : null;
  }

  /** Ends a run that failed (endFailed) now, or, when Redis does not answer, as soon as the connection is back. */
  endFailedWhenBack(record: RunKey, failure: JobFailure): Promise<void> {
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
    const answer = await this.eval(
      CANCEL,
      3,
      ...this.keys(kind, ticket),
      this.leaseKey(current),
      current.runId,
      statesBefore('cancelled'),
      this.ttlSeconds,
      'cancelling' satisfies JobState,
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
      if (current?.runId !== record.runId || !inProgress(current.state) || Date.now() >= deadline)
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
    const committing: JobState = 'committing';
    return (await this.eval(MOVE, 1, key, record.runId, COMMITTING_FROM, 'state', committing)) === 1;
  }

  /**
   * Remembers that units of work (files) of the run are done, each item with its data, so a resumed run can
   * skip them. At most MAX_CHECKPOINTS at once (Redis's Lua takes some 8,000 arguments).
   */
  async checkpoint(record: RunKey, checkpoints: ReadonlyMap<string, unknown>): Promise<boolean> {
    if (checkpoints.size > MAX_CHECKPOINTS) throw new RangeError(`more than ${MAX_CHECKPOINTS} checkpoints`);
    const pairs = [...checkpoints].flatMap(([item, data]) => [item, JSON.stringify(data)]);
    const keys = this.keys(record.kind, record.ticket);
    return (await this.eval(CHECKPOINT, 2, ...keys, record.runId, IN_PROGRESS, ...pairs)) === 1;
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
    return (await this.eval(HOLD, 1, this.leaseKey(record), holder, Math.ceil(ttlMs))) === 1;
  }

  async releaseRun(record: RunKey, holder: string): Promise<void> {
    await this.eval(RELEASE, 1, this.leaseKey(record), holder);
  }

  /** Every run still in progress, found by scanning (for the janitor; never on a request's path). */
  async *inProgress(): AsyncIterable<JobRecord> {
    const stream = this.redis.scanStream({ match: `${this.prefix}:job:*`, count: 500 });
    for await (const keys of stream as AsyncIterable<string[]>) {
      for (const key of keys) {
        if (key.endsWith(':checkpoints') || key.includes(':runner:')) continue;
        const record = await this.read(key);
        if (record && inProgress(record.state)) yield record;
      }
    }
  }

  private async read(key: string): Promise<JobRecord | null> {
    const flat = (await this.eval(GET, 1, key)) as string[];
    const fields: Record<string, string> = {};
    for (let i = 0; i < flat.length; i += 2) fields[flat[i]] = flat[i + 1];
    return fields.runId ? fromFields(fields) : null;
  }

  private leaseKey(record: RunKey): string {
    return `${this.keys(record.kind, record.ticket)[0]}:runner:${record.runId}`;
  }

  private keys(kind: JobKind, ticket: string): [string, string] {
    const key = `${this.prefix}:job:${kind}:${ticket}`;
    return [key, `${key}:checkpoints`];
  }
}

/** A record's fields, as name, value, name, value...: numbers as numbers, the result as JSON, nulls left out. */
function toFields(record: JobRecord): string[] {
  return Object.entries(record).flatMap(([name, value]) => {
    if (value === null || value === undefined) return [];
    return [name, name === 'result' ? JSON.stringify(value) : String(value)];
  });
}

function fromFields(fields: Record<string, string>): JobRecord {
  const number = (name: string) => Number(fields[name] ?? 0);
  return {
    kind: fields.kind as JobKind,
    ticket: fields.ticket ?? '',
    runId: fields.runId ?? '',
    state: fields.state as JobState,
    message: fields.message ?? '',
    filesTotal: number('filesTotal'),
    filesDone: number('filesDone'),
    bytesTotal: number('bytesTotal'),
    bytesDone: number('bytesDone'),
    percent: number('percent'),
    failureCode: fields.failureCode === undefined ? null : Number(fields.failureCode),
    result: fields.result === undefined ? null : (JSON.parse(fields.result) as JobRecord['result']),
    createdAt: fields.createdAt ?? '',
    endedAt: fields.endedAt ?? null,
  };
}
