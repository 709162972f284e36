import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import Redis from 'ioredis';
import { JobStore, type JobRecord } from '@app/jobs';
import { CheckpointQueue } from '../../apps/worker/src/jobs/checkpoint-queue';
import { JobContext } from '../../apps/worker/src/jobs/job-context';

/**
 * A job store on the test Redis that keeps the groups its checkpoint writes carried, and can hold a write on
 * its way (as a slow Redis would) or fail it.
 */
class WatchedStore extends JobStore {
  readonly writes: string[][] = [];
  failWith: Error | null = null;
  private held: Promise<void> = Promise.resolve();

  /** Holds the writes that start from now on until the answer is called. */
  hold(): () => void {
    let release!: () => void;
    this.held = new Promise((resolve) => (release = resolve));
    return release;
  }

  override async checkpoint(record: JobRecord, checkpoints: ReadonlyMap<string, unknown>): Promise<boolean> {
    this.writes.push([...checkpoints.keys()]);
    await this.held;
    if (this.failWith) throw this.failWith;
    return super.checkpoint(record, checkpoints);
  }
}

describe('a run’s checkpoints, written in groups', () => {
  let redis: Redis;
  let store: WatchedStore;
  let record: JobRecord;
  let context: JobContext;

  beforeAll(() => {
    redis = new Redis(process.env.PRESQT_TEST_REDIS_URL!);
  });
  afterAll(async () => {
    await redis.quit();
  });
  beforeEach(async () => {
    store = new WatchedStore(redis, `checkpoints${randomUUID().slice(0, 8)}`, 3600);
    record = (await store.start('transfer', 'ticket'))!;
    context = new JobContext(store, record, { holder: 'test', ttlMs: 30_000 });
  });
  afterEach(async () => {
    await context.close();
  });

  /** the files the job's record counts finished, once its progress is written */
  const filesDone = async () => {
    await context.flush();
    return (await store.get('transfer', 'ticket'))!.filesDone;
  };

  it('remembers the files that finish in one turn with one write, and counts them finished once it is done', async () => {
    const queue = new CheckpointQueue(store, context);
    for (const name of ['a', 'b', 'c']) queue.add(`/${name}`, { size: name.length });
    expect(await filesDone()).toBe(0);
    await queue.flush();
    expect(store.writes).toEqual([['/a', '/b', '/c']]);
    expect(await store.checkpoints(record)).toEqual(
      new Map([
        ['/a', { size: 1 }],
        ['/b', { size: 1 }],
        ['/c', { size: 1 }],
      ]),
    );
    expect(await filesDone()).toBe(3);
  });

  it('sends the files that finish while a write is on its way together in the next one', async () => {
    const queue = new CheckpointQueue(store, context);
    const release = store.hold();
    queue.add('/a', {});
    await nextTurn();
    expect(store.writes).toEqual([['/a']]);
    queue.add('/b', {});
    await nextTurn();
    queue.add('/c', {});
    await nextTurn();
    expect(store.writes).toEqual([['/a']]);
    release();
    await queue.flush();
    expect(store.writes).toEqual([['/a'], ['/b', '/c']]);
    expect([...(await store.checkpoints(record)).keys()].sort()).toEqual(['/a', '/b', '/c']);
  });

  it('fails the run at its next file once a write failed, without counting the files it held', async () => {
    const queue = new CheckpointQueue(store, context);
    store.failWith = new Error('Redis is gone');
    queue.add('/a', {});
    await expect(queue.flush()).rejects.toThrow('Redis is gone');
    expect(() => queue.add('/b', {})).toThrow('Redis is gone');
    store.failWith = null;
    expect(await filesDone()).toBe(0);
    expect(await store.checkpoints(record)).toEqual(new Map());
  });
});
