import { createHash } from 'node:crypto';
import { CanActivate, DynamicModule, ExecutionContext, Injectable, Logger, Module } from '@nestjs/common';
import {
  ThrottlerGuard,
  ThrottlerModule,
  type ThrottlerLimitDetail,
  type ThrottlerOptions,
  type ThrottlerRequest,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import type { Request, Response } from 'express';
import type Redis from 'ioredis';
import { ServiceError } from '@app/common';
import { DESTINATION_TOKEN_HEADER, REDIS_CLIENT, SOURCE_TOKEN_HEADER } from '@app/jobs';
import { RateLimitSettings } from './rate-limit.settings';

type LimitedRequest = 'job start' | 'listing';
/** What the storage answers for one count (the package does not export the type by name). */
type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** Job starts (a POST on resources, or a GET of `{id}.zip`) and listings (a GET of the collection). */
function limitedRequestOf(context: ExecutionContext): LimitedRequest | null {
  const request = context.switchToHttp().getRequest<Request>();
  if (request.method === 'POST') return 'job start';
  if (request.method !== 'GET') return null;
  const resource = request.params.resource;
  if (resource === undefined) return 'listing';
  return typeof resource === 'string' && /\.zip$/i.test(resource) ? 'job start' : null;
}

/** The client's address (what Express makes of it under TRUST_PROXY). */
function byAddress(request: Request): string[] {
  return [`address:${request.ip ?? request.socket.remoteAddress ?? 'unknown'}`];
}

/**
 * The token headers a limited request uses: a listing's and a download's source token, an upload's
 * destination token (a multipart body, as the controller tells them apart), a transfer's both. A header the
 * route ignores is never counted, so that sending a new one each time cannot open a fresh count.
 */
function tokenHeadersOf(request: Request): string[] {
  if (request.method !== 'POST') return [SOURCE_TOKEN_HEADER];
  if (request.is('multipart/form-data')) return [DESTINATION_TOKEN_HEADER];
  return [SOURCE_TOKEN_HEADER, DESTINATION_TOKEN_HEADER];
}

/**
 * One count for each distinct token the request uses, as a digest (the limiter's keys never hold a token): a
 * transfer counts against both of its tokens. A request without one counts against its address.
 */
function byToken(request: Request): string[] {
  const tokens = new Set<string>();
  for (const name of tokenHeadersOf(request)) {
    const token = request.headers[name];
    if (typeof token === 'string' && token !== '') tokens.add(token);
  }
  if (tokens.size === 0) return byAddress(request);
  return [...tokens].map((token) => `token:${createHash('sha256').update(token).digest('hex')}`);
}

/** A throttler with the counts one request adds to: several for a request that uses several tokens. */
interface CountedThrottler extends ThrottlerOptions {
  trackersOf(request: Request): string[];
}

function throttlers(settings: RateLimitSettings): CountedThrottler[] {
  const ttl = settings.windowSeconds * 1000;
  const limits: [LimitedRequest, 'token' | 'address', number][] = [
    ['job start', 'token', settings.jobStartsPerToken],
    ['job start', 'address', settings.jobStartsPerAddress],
    ['listing', 'token', settings.listingsPerToken],
    ['listing', 'address', settings.listingsPerAddress],
  ];
  return limits.map(([limited, per, limit]) => ({
    name: `${limited} per ${per}`,
    ttl,
    limit,
    skipIf: (context) => limitedRequestOf(context) !== limited,
    trackersOf: per === 'token' ? byToken : byAddress,
  }));
}

/** The counting (@nestjs/throttler's guard): 429 with Retry-After (seconds) and the usual JSON error. */
@Injectable()
export class RateCounting extends ThrottlerGuard {
  protected override async handleRequest(limited: ThrottlerRequest): Promise<boolean> {
    const request = limited.context.switchToHttp().getRequest<Request>();
    for (const tracker of (limited.throttler as CountedThrottler).trackersOf(request))
      await super.handleRequest({ ...limited, getTracker: () => tracker });
    return true;
  }

  protected override throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const response = context.switchToHttp().getResponse<Response>();
    response.setHeader('Retry-After', String(Math.max(1, detail.timeToBlockExpire)));
    throw new ServiceError(
      429,
      `PresQT Error: too many requests of this kind (${detail.limit} a ${Math.round(detail.ttl / 1000)} s window ${detail.tracker.startsWith('address') ? 'per address' : 'per token'}); try again in ${detail.timeToBlockExpire} s.`,
    );
  }
}

/**
 * The guard of limited routes. RATE_LIMITS=off: it lets the request through at once, not even looking up the
 * throttlers' metadata (four times a request) nor answering with a promise (ThrottlerGuard makes three).
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly settings: RateLimitSettings,
    private readonly counting: RateCounting,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    return this.settings.enabled ? this.counting.canActivate(context) : true;
  }
}

/** What a request counts as when Redis cannot count it: let through. */
const UNCOUNTED: ThrottlerStorageRecord = {
  totalHits: 0,
  timeToExpire: 0,
  isBlocked: false,
  timeToBlockExpire: 0,
};
/** ioredis's states of a connection that was lost or closed. */
const LOST = new Set(['reconnecting', 'close', 'end']);
/**
 * The longest a request waits for its count. A count is one Lua step, which a Redis that is well answers within
 * a millisecond; one that hangs (a frozen primary before the sentinels replace it) would otherwise add its
 * whole REDIS_TIMEOUT_MS to every request, before the request's own wait for the job store.
 */
const COUNT_WAIT_MS = 300;
/** Redis's absence is logged at most this often, not once per request. */
const WARNING_INTERVAL_MS = 10_000;

/**
 * The counts, kept in Redis (one Lua step per count, @nest-lab/throttler-storage-redis) on the process's own
 * Redis connection, so that every API process adds to the same ones. While Redis cannot count (not connected,
 * no answer within REDIS_TIMEOUT_MS, or a count still unanswered after COUNT_WAIT_MS) a request goes uncounted
 * rather than wait or fail: the limits guard the service, and a listing needs no Redis of its own
 * (docs/limits.md#rate-limits). A count given up on still lands when Redis answers it; until it has, no other
 * request waits for one.
 */
export class SharedRateCounts implements ThrottlerStorage {
  private readonly counts: ThrottlerStorageRedisService;
  private readonly logger = new Logger('RateLimits');
  private warnedAt = 0;
  /** counts given up on that Redis has neither answered nor failed yet */
  private unanswered = 0;

  constructor(private readonly redis: Redis) {
    this.counts = new ThrottlerStorageRedisService(redis);
  }

  async increment(...count: Parameters<ThrottlerStorage['increment']>): Promise<ThrottlerStorageRecord> {
    // a connection lost is not waited for; one still being made at start is (ioredis queues the command)
    if (LOST.has(this.redis.status)) return this.uncounted(`the connection is ${this.redis.status}`);
    if (this.unanswered > 0) return this.uncounted('an earlier count is still unanswered');
    const counting = this.counts.increment(...count);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), COUNT_WAIT_MS)));
    try {
      const counted = await Promise.race([counting, late]);
      if (counted) return counted;
      this.unanswered++;
      void counting.catch(() => undefined).finally(() => this.unanswered--);
      return this.uncounted(`no answer within ${COUNT_WAIT_MS} ms`);
    } catch (error) {
      return this.uncounted((error as Error).message);
    } finally {
      clearTimeout(timer);
    }
  }

  private uncounted(why: string): ThrottlerStorageRecord {
    if (Date.now() - this.warnedAt >= WARNING_INTERVAL_MS) {
      this.warnedAt = Date.now();
      this.logger.warn(`Rate limits count nothing while Redis cannot count (${why})`);
    }
    return UNCOUNTED;
  }
}

/**
 * Per-token and per-address limits on job starts and listings (@nestjs/throttler), counted in Redis under
 * REDIS_PREFIX and so shared by every API process, applied where RateLimitGuard is; RATE_LIMITS=off turns
 * them off.
 */
@Module({})
export class RateLimitsModule {
  static forRoot(settings: RateLimitSettings, redisPrefix: string): DynamicModule {
    return {
      module: RateLimitsModule,
      global: true,
      imports: [
        ThrottlerModule.forRootAsync({
          inject: [REDIS_CLIENT],
          useFactory: (redis: Redis) => ({
            throttlers: throttlers(settings),
            setHeaders: false,
            storage: new SharedRateCounts(redis),
            // the storage adds the throttler's name
            generateKey: (_context, tracker) => `${redisPrefix}:rate-limit:${tracker}`,
          }),
        }),
      ],
      providers: [RateLimitGuard, RateCounting],
      exports: [RateLimitGuard, RateCounting, ThrottlerModule],
    };
  }
}
