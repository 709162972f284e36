import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { plainToInstance, Transform } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
  validateSync,
} from 'class-validator';
import { projectRoot } from '@app/common';

const toInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
const emptyAsUnset = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

/** The environment as the service reads it; every variable is optional and has a default. */
class Environment {
  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'PORT must be an integer' })
  @Min(0)
  @Max(65535)
  PORT: number = 8000;

  @IsOptional()
  @IsString()
  HOST: string = '0.0.0.0';

  @IsOptional()
  @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  REDIS_URL: string = 'redis://127.0.0.1:6379';

  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]+$/, { message: 'REDIS_PREFIX must contain only letters, digits, _ and -' })
  REDIS_PREFIX: string = 'presqt';

  @IsOptional()
  @Transform(emptyAsUnset)
  @IsString()
  TARGETS_FILE?: string;

  @IsOptional()
  @IsString()
  DATA_DIR: string = './var';

  @IsOptional()
  @Transform(emptyAsUnset)
  @IsString()
  @MinLength(16, { message: 'SECRET_KEY must be at least 16 characters long' })
  SECRET_KEY?: string;

  @IsOptional()
  @Transform(emptyAsUnset)
  @IsUrl(
    { require_tld: false, require_protocol: true, protocols: ['http', 'https'] },
    { message: 'PUBLIC_BASE_URL must be an absolute http(s) URL, such as https://presqt.example.org' },
  )
  PUBLIC_BASE_URL?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'PER_PAGE must be an integer' })
  @Min(1)
  @Max(100)
  PER_PAGE: number = 10;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'STATUS_TIMEOUT_MS must be an integer' })
  @Min(100)
  @Max(60000)
  STATUS_TIMEOUT_MS: number = 5000;

  @IsOptional()
  @IsIn(['error', 'warn', 'log', 'debug', 'verbose'])
  LOG_LEVEL: 'error' | 'warn' | 'log' | 'debug' | 'verbose' = 'log';

  @IsOptional()
  @IsIn(['text', 'json'])
  LOG_FORMAT: 'text' | 'json' = 'text';
}

/** Validated settings shared by the API and the worker. */
export class AppConfig {
  readonly port: number;
  readonly host: string;
  readonly redisUrl: string;
  readonly redisPrefix: string;
  readonly targetsFile: string;
  readonly dataDir: string;
  readonly publicBaseUrl: string | undefined;
  readonly perPage: number;
  readonly statusTimeoutMs: number;
  readonly logLevel: Environment['LOG_LEVEL'];
  readonly logFormat: Environment['LOG_FORMAT'];
  readonly secretKey: string;

  constructor(env: Environment, secretKey: string) {
    this.port = env.PORT;
    this.host = env.HOST;
    this.redisUrl = env.REDIS_URL;
    this.redisPrefix = env.REDIS_PREFIX;
    this.targetsFile = resolve(env.TARGETS_FILE ?? join(projectRoot(), 'config', 'targets.json'));
    this.dataDir = resolve(env.DATA_DIR);
    this.publicBaseUrl = env.PUBLIC_BASE_URL?.replace(/\/+$/, '');
    this.perPage = env.PER_PAGE;
    this.statusTimeoutMs = env.STATUS_TIMEOUT_MS;
    this.logLevel = env.LOG_LEVEL;
    this.logFormat = env.LOG_FORMAT;
    this.secretKey = secretKey;
  }
}

export class ConfigError extends Error {}

/** Reads and validates the environment; throws ConfigError listing every problem. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): AppConfig {
  const env = plainToInstance(Environment, { ...source }, { exposeDefaultValues: true });
  const problems = validateSync(env, { forbidUnknownValues: false }).flatMap((error) =>
    Object.values(error.constraints ?? {}).map((text) =>
      text.startsWith(error.property) ? text : `${error.property}: ${text}`,
    ),
  );
  if (problems.length > 0) {
    throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
  const dataDir = resolve(env.DATA_DIR);
  return new AppConfig(env, env.SECRET_KEY ?? persistentSecret(dataDir));
}

/**
 * Without SECRET_KEY, one random key is made once and kept in the data directory, so that tickets and
 * encrypted queue payloads stay valid across restarts and between the API and the worker. Creating it
 * with the exclusive flag lets two processes starting together agree on one key.
 */
function persistentSecret(dataDir: string): string {
  if (!isAbsolute(dataDir)) throw new ConfigError('DATA_DIR must resolve to an absolute path');
  const file = join(dataDir, 'secret.key');
  mkdirSync(dataDir, { recursive: true });
  try {
    writeFileSync(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  for (let attempt = 0; ; attempt++) {
    const key = readFileSync(file, 'utf8').trim();
    // another process may have created the file and not yet written it
    if (key.length >= 32 || attempt > 50) {
      if (key.length < 32) throw new ConfigError(`${file} does not hold a usable secret key`);
      return key;
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
}
