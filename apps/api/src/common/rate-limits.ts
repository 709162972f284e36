import { createHash } from 'node:crypto';
import { DynamicModule, ExecutionContext, Injectable, Module } from '@nestjs/common';
import {
  ThrottlerGuard,
  ThrottlerModule,
  type ThrottlerLimitDetail,
  type ThrottlerOptions,
} from '@nestjs/throttler';
import type { Request, Response } from 'express';
import type { RateLimitSettings } from '@app/config';
import { ServiceError } from '@app/common';
import { DESTINATION_TOKEN_HEADER, SOURCE_TOKEN_HEADER } from '@app/jobs';

type LimitedRequest = 'job start' | 'listing';

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
function byAddress(request: Request): string {
  return `address:${request.ip ?? request.socket.remoteAddress ?? 'unknown'}`;
}

/** The token(s) of the request, as a digest (the limiter's keys never hold a token); the address without one. */
function byToken(request: Request): string {
  const tokens = [SOURCE_TOKEN_HEADER, DESTINATION_TOKEN_HEADER].map((name) => request.headers[name] ?? '');
  if (tokens.every((token) => token === '')) return byAddress(request);
  return `token:${createHash('sha256').update(tokens.join('\n')).digest('hex')}`;
}

function throttlers(settings: RateLimitSettings): ThrottlerOptions[] {
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
    // a throttler's own skipIf replaces the module's: the switch goes here
    skipIf: (context) => !settings.enabled || limitedRequestOf(context) !== limited,
    getTracker: (request) => (per === 'token' ? byToken(request as Request) : byAddress(request as Request)),
  }));
}

/** 429 with Retry-After (seconds) and the usual JSON error. */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
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
 * Per-token and per-address limits on job starts and listings (@nestjs/throttler, counted in each API
 * process's memory), applied where RateLimitGuard is; RATE_LIMITS=off turns them off.
 */
@Module({})
export class RateLimitsModule {
  static forRoot(settings: RateLimitSettings): DynamicModule {
    return {
      module: RateLimitsModule,
      global: true,
      imports: [
        ThrottlerModule.forRoot({
          throttlers: throttlers(settings),
          setHeaders: false,
        }),
      ],
      providers: [RateLimitGuard],
      exports: [RateLimitGuard, ThrottlerModule],
    };
  }
}
