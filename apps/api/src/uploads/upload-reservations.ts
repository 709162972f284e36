import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import { REDIS_CLIENT, RedisSettings, writeWhenBack } from '@app/jobs';

/** How long a reservation lives unless renewed: an API process that dies while receiving frees it by then. */
const HOLD_MS = 30_000;

/** Deletes the reservation only if it is still this holder's. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** A user's claim on receiving one upload, released once the upload is queued or refused. */
export interface UploadReservation {
  release(): Promise<void>;
}

/**
 * One upload received at a time per user, across every API process: the claim is taken in Redis before a byte
 * of the package is read, so simultaneous uploads of one user do not each receive and inspect a package only
 * for all but one to be refused afterwards. It is renewed while held and lapses if its process dies.
 */
@Injectable()
export class UploadReservations {
  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    private readonly redisSettings: RedisSettings,
  ) {}

  /** The reservation for `ticket`, or null when another upload of the same user holds it. */
  async reserve(ticket: string): Promise<UploadReservation | null> {
    const key = `${this.redisSettings.prefix}:upload-receiving:${ticket}`;
    const holder = randomUUID();
    if ((await this.redis.set(key, holder, 'PX', HOLD_MS, 'NX')) !== 'OK') return null;
    const renewal = setInterval(
      () => void this.redis.pexpire(key, HOLD_MS).catch(() => undefined),
      HOLD_MS / 3,
    );
    renewal.unref();
    return {
      release: async () => {
        clearInterval(renewal);
        // a failed start must not keep the user's next upload out until the reservation lapses
        await writeWhenBack(this.redis, () => this.redis.eval(RELEASE, 1, key, holder));
      },
    };
  }
}
