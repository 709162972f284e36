import { IdleCollector } from '../../apps/worker/src/jobs/idle-collector';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('IdleCollector', () => {
  it('collects once, after the last of overlapping jobs has ended and the delay has passed', async () => {
    let collections = 0;
    const collector = new IdleCollector(() => collections++, 50);
    const first = collector.around(() => pause(20));
    const second = collector.around(() => pause(100));
    await first;
    await pause(80);
    expect(collections).toBe(0); // the second job still runs
    await second;
    await pause(20);
    expect(collections).toBe(0); // not before the delay
    await pause(80);
    expect(collections).toBe(1);
  });

  it('does not collect when a job starts within the delay, and passes on what a job answers or throws', async () => {
    let collections = 0;
    const collector = new IdleCollector(() => collections++, 50);
    await expect(collector.around(() => Promise.resolve('done'))).resolves.toBe('done');
    await expect(collector.around(() => Promise.reject(new Error('broke')))).rejects.toThrow('broke');
    const long = collector.around(() => pause(120));
    await pause(80);
    expect(collections).toBe(0);
    await long;
    await pause(100);
    expect(collections).toBe(1);
  });
});
