import { setTimeout as sleep } from 'node:timers/promises';
import { FakeServer } from '../fakes/fake-server';

/** How many timers keep this process alive now. */
const activeTimers = () => process.getActiveResourcesInfo().filter((type) => type === 'Timeout').length;

/** Waits up to a second for the number of live timers to fall back to `count`; the number it ends with. */
async function timersSettleAt(count: number): Promise<number> {
  for (let waited = 0; activeTimers() > count && waited < 1000; waited += 20) await sleep(20);
  return activeTimers();
}

/**
 * The fakes run inside the test process: a wait of theirs left running after a client gave up (a test of a
 * timeout, say) keeps the Jest worker alive after its tests end, and Jest then reports a leak.
 */
describe('the fake upstream server stops waiting for a client that went', () => {
  let fake: FakeServer;
  /** the timers running once the fake has answered a request */
  let idle: number;

  beforeEach(async () => {
    fake = await new FakeServer('example').start();
    fake.route('GET', '/file', (_request, answer) => answer.send(200, Buffer.alloc(1024)));
    expect((await fetch(`${fake.url}/file`)).status).toBe(200);
    idle = activeTimers();
  });

  afterEach(() => fake.stop());

  it('ends its latency when the client gives up', async () => {
    fake.latencyMs = 60_000;
    await expect(fetch(`${fake.url}/file`, { signal: AbortSignal.timeout(100) })).rejects.toThrow();
    expect(fake.requests).toHaveLength(2);
    expect(await timersSettleAt(idle)).toBe(idle);
  });

  it('ends a slow body when the client gives up, and when the fake stops', async () => {
    fake.inject({ kind: 'slow', delayMs: 60_000, times: 2 });
    await expect(fetch(`${fake.url}/file`, { signal: AbortSignal.timeout(100) })).rejects.toThrow();
    const waiting = fetch(`${fake.url}/file`);
    while (fake.requests.length < 3) await sleep(10);
    await fake.stop();
    await expect(waiting).rejects.toThrow();
    expect(await timersSettleAt(idle)).toBe(idle);
  });
});
