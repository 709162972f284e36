import { Logger } from '@nestjs/common';
import Redis, { type RedisOptions } from 'ioredis';
import type { RedisAddress } from './redis.settings';

/**
 * How a process waits for Redis. The API gives up on a command after `commandTimeoutMs`, and at once while no
 * primary is connected, and answers 503 rather than hang its clients. The worker (no timeout) waits however
 * long it takes: its commands wait for the next primary and those in flight when a connection dropped are sent
 * again, so that a run rides out a failover and carries on.
 */
export interface RedisWaiting {
  commandTimeoutMs?: number;
}

/** How long between two attempts to reconnect: a new primary is found within a second of being promoted. */
const RECONNECT_STEP_MS = 100;
const RECONNECT_MAX_MS = 1000;
/** how many sentinels a process listens to for the announcement of a new primary */
const FAILOVER_SUBSCRIPTIONS = 2;
/** how long a connection may take to close politely at shutdown */
const QUIT_WAIT_MS = 1000;
/** how often a connection's errors are logged at most while it stays down */
const ERROR_LOG_INTERVAL_MS = 5000;

/** What a connection is for: commands, or Bull's blocking reads and event subscriptions, which wait by design. */
export type ConnectionUse = 'commands' | 'blocking';

/**
 * The one place Redis connections are made, from the settings (REDIS_URL, or REDIS_SENTINELS with its name
 * and passwords): the process's own and Bull's (its `createClient`), all of which it closes at the end.
 */
export class RedisConnections {
  private readonly logger = new Logger('Redis');
  private readonly opened = new Set<Redis>();
  /** the connections to sentinels that announce a new primary (with Sentinel, once a connection is open) */
  private announcements: Redis[] | null = null;
  private errorLoggedAt = 0;

  constructor(
    private readonly settings: RedisAddress,
    private readonly waiting: RedisWaiting = {},
  ) {}

  /** With Sentinel a replica may become the primary: writes that must outlive that are confirmed by one. */
  get replicated(): boolean {
    return this.settings.kind === 'sentinel';
  }

  /** Where the connections go, for logs (never with a password). */
  describe(): string {
    const { settings } = this;
    if (settings.kind === 'server') return settings.url.replace(/\/\/[^@]*@/, '//');
    const sentinels = settings.sentinels.map(({ host, port }) => `${host}:${port}`).join(', ');
    return `the primary "${settings.name}" of the sentinels ${sentinels}`;
  }

  /** A new connection to the primary, which logs when it is lost and when it is back. */
  open(use: ConnectionUse = 'commands'): Redis {
    const client = new Redis(this.options(use));
    if (use === 'commands' && this.waiting.commandTimeoutMs !== undefined) answerAtOnceWhenLost(client);
    this.logConnectionChanges(client);
    this.opened.add(client);
    client.once('end', () => this.opened.delete(client));
    if (this.settings.kind === 'sentinel') this.announcements ??= this.followFailovers(this.settings);
    return client;
  }

  /** The ioredis options of a connection for `use`: where the primary is, and how this process waits for it. */
  options(use: ConnectionUse = 'commands'): RedisOptions {
    const answerAtOnce = use === 'commands' && this.waiting.commandTimeoutMs !== undefined;
    return {
      ...addressOptions(this.settings),
      ...(use === 'blocking'
        ? // Bull refuses a blocking connection that gives up on commands or checks readiness
          { maxRetriesPerRequest: null, enableReadyCheck: false }
        : {
            commandTimeout: this.waiting.commandTimeoutMs,
            maxRetriesPerRequest: answerAtOnce ? 3 : null,
            // the API does not send again a command whose answer was lost: it has answered 503 for it
            autoResendUnfulfilledCommands: !answerAtOnce,
          }),
      retryStrategy: (attempt) => Math.min(attempt * RECONNECT_STEP_MS, RECONNECT_MAX_MS),
      // A demoted primary (a failover while it was reachable) refuses writes: find the new one. A refused
      // command never ran, so one that waits for Redis can be sent again.
      reconnectOnError: (error) => (error.message.startsWith('READONLY') ? (answerAtOnce ? 1 : 2) : false),
    };
  }

  /**
   * Closes every connection still open: politely (QUIT) when it stands, within a second; at once when it does
   * not (a QUIT would wait behind the commands queued for a Redis that is gone, and hold the process).
   */
  async closeAll(): Promise<void> {
    for (const sentinel of this.announcements ?? []) sentinel.disconnect();
    await Promise.all(
      [...this.opened].map(async (client) => {
        if (client.status === 'ready') {
          const quit = client.quit().catch(() => undefined);
          await Promise.race([quit, new Promise((resolve) => setTimeout(resolve, QUIT_WAIT_MS).unref())]);
        }
        client.disconnect();
      }),
    );
  }

  /**
   * Listens to two sentinels for `+switch-master`: when they announce a new primary, every connection still
   * standing to another server is cut, and reconnects through the sentinels to the new one. A connection to a
   * primary that hangs (a frozen host, a partition) would otherwise wait on it until the command timeout, or
   * for ever. (ioredis's own `failoverDetector` does this per connection, and ends for good a connection it
   * cuts while that one is looking for the primary.)
   */
  private followFailovers(settings: Extract<RedisAddress, { kind: 'sentinel' }>): Redis[] {
    return settings.sentinels.slice(0, FAILOVER_SUBSCRIPTIONS).map(({ host, port }) => {
      const sentinel = new Redis({
        host,
        port,
        password: settings.sentinelPassword,
        maxRetriesPerRequest: null,
        retryStrategy: (attempt) => Math.min(attempt * RECONNECT_STEP_MS, RECONNECT_MAX_MS),
      });
      // a sentinel that is down is one of several; the connection keeps trying it
      sentinel.on('error', () => undefined);
      sentinel.on('message', (_channel: string, message: string) => {
        // `<name> <former host> <former port> <new host> <new port>`
        const [name, , , host, port] = message.split(' ');
        if (name === settings.name) this.leaveAllBut(host, Number(port));
      });
      void sentinel.subscribe('+switch-master').catch(() => undefined);
      return sentinel;
    });
  }

  /** Cuts every standing connection that is not to `host:port`; each reconnects to the primary. */
  private leaveAllBut(host: string, port: number): void {
    for (const client of this.opened) {
      const stream = client.stream as { remoteAddress?: string; remotePort?: number; destroy(): void };
      const address = stream?.remoteAddress?.replace(/^::ffff:/, '');
      if (client.status === 'ready' && !(address === host && stream.remotePort === port)) stream.destroy();
    }
  }

  /** Logs a lost connection (of all of them, once in ERROR_LOG_INTERVAL_MS at most), and each one back. */
  private logConnectionChanges(client: Redis): void {
    let lost = false;
    client.on('error', (error: Error) => {
      lost = true;
      if (Date.now() - this.errorLoggedAt < ERROR_LOG_INTERVAL_MS) return;
      this.errorLoggedAt = Date.now();
      this.logger.warn(`Redis connection to ${this.describe()}: ${error.message}`);
    });
    client.on('ready', () => {
      if (!lost) return;
      lost = false;
      const stream = client.stream as { remoteAddress?: string; remotePort?: number } | undefined;
      this.logger.log(`Redis connection back, to ${stream?.remoteAddress}:${stream?.remotePort}`);
    });
  }
}

/**
 * Commands wait for the first connection (the process is starting), but once it stands, the API does not
 * wait for a lost one: a command sent while no primary is connected fails at once, and so do those whose
 * answers the lost connection took with it, instead of waiting for the command timeout.
 */
function answerAtOnceWhenLost(client: Redis): void {
  client.once('ready', () => (client.options.enableOfflineQueue = false));
  client.on('close', () => {
    for (let item = client.commandQueue.shift(); item; item = client.commandQueue.shift())
      item.command.reject(new Error('Connection is closed.'));
  });
}

/** Where the primary is: a server's address, or the sentinels that name it. */
function addressOptions(settings: RedisAddress): RedisOptions {
  if (settings.kind === 'sentinel') {
    return {
      sentinels: settings.sentinels,
      name: settings.name,
      sentinelPassword: settings.sentinelPassword,
      password: settings.password,
      sentinelRetryStrategy: (attempt) => Math.min(attempt * RECONNECT_STEP_MS, RECONNECT_MAX_MS),
    };
  }
  // read once here for every connection (Bull, given the URL itself, read it without rediss://'s TLS)
  const url = new URL(settings.url);
  const decoded = (part: string) => (part === '' ? undefined : decodeURIComponent(part));
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1',
    port: url.port === '' ? 6379 : Number(url.port),
    username: decoded(url.username),
    password: settings.password ?? decoded(url.password),
    db: Number.parseInt(url.pathname.slice(1), 10) || 0,
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}
