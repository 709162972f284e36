import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { freePort } from './ports';
import { killAndWait } from './processes';
import { waitForPort } from './redis-server';

const NAME = 'presqt';
const DATA_PASSWORD = 'data-nodes-password';
const SENTINEL_PASSWORD = 'sentinels-password';

/** How fast the sentinels act: a primary is down after 1 s without answering (Sentinel's default is 30 s). */
export interface SentinelTimings {
  downAfterMs: number;
  failoverTimeoutMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One redis-server of the set, with its append-only file, restartable on its port and directory. */
class DataNode {
  process: ChildProcess | null = null;

  constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  /** Starts it (as a replica of `primaryPort`, if given) from a config file Sentinel may rewrite. */
  async start(primaryPort?: number): Promise<void> {
    const config = join(this.dir, 'redis.conf');
    const lines = [
      `port ${this.port}`,
      'bind 127.0.0.1',
      `dir ${this.dir}`,
      'appendonly yes',
      'appendfsync everysec',
      'save ""',
      `requirepass ${DATA_PASSWORD}`,
      `masterauth ${DATA_PASSWORD}`,
      ...(primaryPort === undefined ? [] : [`replicaof 127.0.0.1 ${primaryPort}`]),
    ];
    writeFileSync(config, `${lines.join('\n')}\n`);
    this.process = spawn('redis-server', [config], { stdio: 'ignore' });
    await waitForPort(this.port, 10_000);
  }

  kill(signal: NodeJS.Signals): Promise<void> {
    return this.process ? killAndWait(this.process, signal) : Promise.resolve();
  }
}

/**
 * Redis Sentinel with real processes (Debian's redis-server and redis-sentinel): a primary, a replica and
 * three sentinels on free loopback ports, the data nodes and the sentinels each with a password. What the
 * apps need is `env`; `killPrimary` kills the primary with SIGKILL, and `failover` waits until the
 * sentinels name another.
 */
export class SentinelSet {
  private readonly nodes: DataNode[] = [];
  private readonly sentinels: { port: number; process: ChildProcess }[] = [];

  private constructor(private readonly dir: string) {}

  static async start(
    timings: SentinelTimings = { downAfterMs: 1000, failoverTimeoutMs: 3000 },
  ): Promise<SentinelSet> {
    for (const binary of ['redis-server', 'redis-sentinel'])
      if (spawnSync(binary, ['--version']).status !== 0)
        throw new Error(`${binary} is not installed: run \`apt-get install -y redis-server redis-sentinel\``);
    const set = new SentinelSet(mkdtempSync(join(tmpdir(), 'presqt-sentinel-')));
    try {
      await set.startNodes();
      for (let i = 0; i < 3; i++) await set.startSentinel(i, timings);
      await set.waitUntilWatched();
    } catch (error) {
      await set.stop();
      throw error;
    }
    return set;
  }

  /** The settings every API and worker process gets. */
  get env(): Record<string, string> {
    return {
      REDIS_URL: '',
      REDIS_SENTINELS: this.sentinels.map(({ port }) => `127.0.0.1:${port}`).join(','),
      REDIS_SENTINEL_NAME: NAME,
      REDIS_SENTINEL_PASSWORD: SENTINEL_PASSWORD,
      REDIS_PASSWORD: DATA_PASSWORD,
    };
  }

  /** A connection to the current primary, through the sentinels, as the apps make it. */
  client(): Redis {
    return new Redis({
      sentinels: this.sentinels.map(({ port }) => ({ host: '127.0.0.1', port })),
      name: NAME,
      sentinelPassword: SENTINEL_PASSWORD,
      password: DATA_PASSWORD,
    });
  }

  /** The port of the primary the sentinels name now (asking each until one answers). */
  async primaryPort(): Promise<number> {
    for (const { port } of this.sentinels) {
      const sentinel = this.sentinelClient(port);
      try {
        const [, primary] = (await sentinel.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', NAME)) as string[];
        return Number(primary);
      } catch {
        // that sentinel is down: ask the next
      } finally {
        sentinel.disconnect();
      }
    }
    throw new Error('no sentinel answers');
  }

  /** Kills the primary with SIGKILL, as a crash of its host; answers its port. */
  async killPrimary(): Promise<number> {
    const port = await this.primaryPort();
    await this.node(port).kill('SIGKILL');
    return port;
  }

  /**
   * Freezes the primary with SIGSTOP, as a hung host or a network partition: its connections stay open and
   * unanswered. `kill` (SIGKILL) ends it, as the operator then does. Answers its port.
   */
  async freezePrimary(): Promise<number> {
    const port = await this.primaryPort();
    this.node(port).process?.kill('SIGSTOP');
    return port;
  }

  async kill(port: number): Promise<void> {
    await this.node(port).kill('SIGKILL');
  }

  /** Waits until the sentinels name a primary other than `formerPort`, and a connection to it works. */
  async failover(formerPort: number, timeoutMs = 30_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const port = await this.primaryPort().catch(() => formerPort);
      if (port !== formerPort) return port;
      if (Date.now() > deadline)
        throw new Error(`no failover from port ${formerPort} within ${timeoutMs} ms`);
      await sleep(100);
    }
  }

  /**
   * Starts a killed node again: as a replica of the current primary, or, when the sentinels still name it
   * (no failover happened), as the primary, from its append-only file.
   */
  async restart(port: number): Promise<void> {
    const primary = await this.primaryPort();
    await this.node(port).start(primary === port ? undefined : primary);
    if (primary !== port) await this.untilReplicated(primary);
  }

  /** Stops every data node as an operator's restart does (SIGTERM: the append-only files are flushed) and starts them again. */
  async restartAll(): Promise<void> {
    const primary = await this.primaryPort();
    await Promise.all(this.nodes.map((node) => node.kill('SIGTERM')));
    await this.node(primary).start();
    for (const node of this.nodes) if (node.port !== primary) await node.start(primary);
    await this.untilReplicated(primary);
  }

  /** Until the primary on `primaryPort` has its replica in sync. */
  private async untilReplicated(primaryPort: number, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await this.replicaInSync(primaryPort))) {
      if (Date.now() > deadline)
        throw new Error(`no replica in sync with port ${primaryPort} in ${timeoutMs} ms`);
      await sleep(100);
    }
  }

  async stop(): Promise<void> {
    await Promise.all([
      ...this.sentinels.map(({ process }) => killAndWait(process)),
      ...this.nodes.map((node) => node.kill('SIGTERM')),
    ]);
  }

  private node(port: number): DataNode {
    const node = this.nodes.find((each) => each.port === port);
    if (!node) throw new Error(`no data node on port ${port}`);
    return node;
  }

  private async startNodes(): Promise<void> {
    for (const role of ['primary', 'replica']) {
      const dir = join(this.dir, role);
      mkdirSync(dir);
      const node = new DataNode(await freePort(), dir);
      this.nodes.push(node);
      await node.start(role === 'replica' ? this.nodes[0].port : undefined);
    }
  }

  private async startSentinel(index: number, timings: SentinelTimings): Promise<void> {
    const port = await freePort();
    const config = join(this.dir, `sentinel-${index}.conf`);
    const lines = [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${this.dir}`,
      `requirepass ${SENTINEL_PASSWORD}`,
      `sentinel sentinel-pass ${SENTINEL_PASSWORD}`,
      `sentinel monitor ${NAME} 127.0.0.1 ${this.nodes[0].port} 2`,
      `sentinel auth-pass ${NAME} ${DATA_PASSWORD}`,
      `sentinel down-after-milliseconds ${NAME} ${timings.downAfterMs}`,
      `sentinel failover-timeout ${NAME} ${timings.failoverTimeoutMs}`,
      `sentinel parallel-syncs ${NAME} 1`,
    ];
    writeFileSync(config, `${lines.join('\n')}\n`);
    const process = spawn('redis-sentinel', [config], { stdio: 'ignore' });
    this.sentinels.push({ port, process });
    await waitForPort(port, 10_000);
  }

  /** Until every sentinel knows the replica and the two other sentinels, and the replica is in sync. */
  private async waitUntilWatched(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const states = await Promise.all(this.sentinels.map(({ port }) => this.watchState(port)));
      const watched = states.every((state) => state.replicas === 1 && state.sentinels === 2);
      if (watched && (await this.replicaInSync(this.nodes[0].port))) return;
      if (Date.now() > deadline)
        throw new Error(`the sentinels did not settle in ${timeoutMs} ms: ${JSON.stringify(states)}`);
      await sleep(200);
    }
  }

  private async watchState(port: number): Promise<{ replicas: number; sentinels: number }> {
    const sentinel = this.sentinelClient(port);
    try {
      const fields = (await sentinel.call('SENTINEL', 'MASTER', NAME)) as string[];
      const field = (name: string) => Number(fields[fields.indexOf(name) + 1]);
      return { replicas: field('num-slaves'), sentinels: field('num-other-sentinels') };
    } finally {
      sentinel.disconnect();
    }
  }

  private async replicaInSync(primaryPort: number): Promise<boolean> {
    const primary = directClient(primaryPort, DATA_PASSWORD);
    try {
      return /slave0:.*state=online/.test(await primary.info('replication'));
    } catch {
      return false;
    } finally {
      primary.disconnect();
    }
  }

  private sentinelClient(port: number): Redis {
    return directClient(port, SENTINEL_PASSWORD);
  }
}

/** A connection to one server that gives up at once when it cannot connect. */
function directClient(port: number, password: string): Redis {
  const client = new Redis({
    port,
    host: '127.0.0.1',
    password,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  return client;
}
