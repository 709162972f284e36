import { IdleCollector } from '../../apps/worker/src/jobs/idle-collector';

// Fake timers: the assertions are about the order of a job's end, the delay and the collection, which real
// timers of a few tens of milliseconds could not hold on a loaded machine.
beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

/** A job that ends when the fake clock has advanced `ms`. */
const jobOf = (ms: number) => () => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('IdleCollector', () => {
  it('collects once, after the last of overlapping jobs has ended and the delay has passed', async () => {
    let collections = 0;
    const collector = new IdleCollector(() => collections++, 50);
    const first = collector.around(jobOf(20));
    const second = collector.around(jobOf(100));
    await jest.advanceTimersByTimeAsync(20);
    await first;
    await jest.advanceTimersByTimeAsync(60);
    expect(collections).toBe(0); // the second job still runs
    await jest.advanceTimersByTimeAsync(20);
    await second;
    await jest.advanceTimersByTimeAsync(49);
    expect(collections).toBe(0); // not before the delay
    await jest.advanceTimersByTimeAsync(1);
    expect(collections).toBe(1);
    await jest.advanceTimersByTimeAsync(1000);
    expect(collections).toBe(1);
  });

  it('does not collect when a job starts within the delay, and passes on what a job answers or throws', async () => {
    let collections = 0;
    const collector = new IdleCollector(() => collections++, 50);
    await expect(collector.around(() => Promise.resolve('done'))).resolves.toBe('done');
    await expect(collector.around(() => Promise.reject(new Error('broke')))).rejects.toThrow('broke');
    const long = collector.around(jobOf(120));
    await jest.advanceTimersByTimeAsync(80);
    expect(collections).toBe(0);
    await jest.advanceTimersByTimeAsync(40);
    await long;
    await jest.advanceTimersByTimeAsync(49);
    expect(collections).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(collections).toBe(1);
  });
});
