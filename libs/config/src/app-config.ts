import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
  ValidateIf,
  validateSync,
} from 'class-validator';
import { projectRoot } from '@app/common';

const toInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
const toBoolean = ({ value }: { value: unknown }): unknown =>
  value === 'true' ? true : value === 'false' ? false : value;
const emptyAsUnset = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

/** `host:port` (an IPv6 address in brackets), comma-separated. */
const SENTINEL_ADDRESS = String.raw`(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}`;
const SENTINEL_LIST = new RegExp(`^${SENTINEL_ADDRESS}(\\s*,\\s*${SENTINEL_ADDRESS})*$`);

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
  @Transform(toInt)
  @IsInt({ message: 'WORKER_HEALTH_PORT must be an integer' })
  @Min(0)
  @Max(65535)
  WORKER_HEALTH_PORT: number = 8001;

  @IsOptional()
  @Transform(emptyAsUnset)
  @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  @IsOptional()
  @Transform(emptyAsUnset)
  @Matches(SENTINEL_LIST, {
    message:
      'REDIS_SENTINELS must be a comma-separated list of host:port, such as sentinel-1:26379,sentinel-2:26379,sentinel-3:26379',
  })
  REDIS_SENTINELS?: string;

  @ValidateIf((env: Environment) => env.REDIS_SENTINELS !== undefined)
  @Transform(emptyAsUnset)
  @Matches(/^[A-Za-z0-9._-]+$/, {
    message:
      'REDIS_SENTINEL_NAME must be the name the sentinels monitor the primary under (letters, digits, . _ -); it is required with REDIS_SENTINELS',
  })
  REDIS_SENTINEL_NAME?: string;

  @IsOptional()
  @Transform(emptyAsUnset)
  @IsString()
  REDIS_SENTINEL_PASSWORD?: string;

  @IsOptional()
  @Transform(emptyAsUnset)
  @IsString()
  REDIS_PASSWORD?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]+$/, { message: 'REDIS_PREFIX must contain only letters, digits, _ and -' })
  REDIS_PREFIX: string = 'presqt';

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'REDIS_TIMEOUT_MS must be an integer' })
  @Min(100)
  @Max(60000)
  REDIS_TIMEOUT_MS: number = 3000;

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
  @IsIn(['on', 'off'], { message: 'RATE_LIMITS must be on or off' })
  RATE_LIMITS: 'on' | 'off' = 'on';

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'RATE_LIMIT_WINDOW_SECONDS must be an integer' })
  @Min(1)
  RATE_LIMIT_WINDOW_SECONDS: number = 60;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'RATE_LIMIT_JOB_STARTS must be an integer' })
  @Min(1)
  RATE_LIMIT_JOB_STARTS: number = 20;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'RATE_LIMIT_JOB_STARTS_PER_ADDRESS must be an integer' })
  @Min(1)
  RATE_LIMIT_JOB_STARTS_PER_ADDRESS: number = 60;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'RATE_LIMIT_LISTINGS must be an integer' })
  @Min(1)
  RATE_LIMIT_LISTINGS: number = 300;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'RATE_LIMIT_LISTINGS_PER_ADDRESS must be an integer' })
  @Min(1)
  RATE_LIMIT_LISTINGS_PER_ADDRESS: number = 1200;

  @IsOptional()
  @Matches(/^(\*|https?:\/\/[^\s,/]+(,\s*https?:\/\/[^\s,/]+)*)$/, {
    message: 'CORS_ORIGINS must be * or a comma-separated list of origins such as https://app.example.org',
  })
  CORS_ORIGINS: string = '*';

  @IsOptional()
  @Transform(emptyAsUnset)
  @IsString()
  TRUST_PROXY?: string;

  @IsOptional()
  @Transform(emptyAsUnset)
  @IsString()
  @MinLength(16, { message: 'ADMIN_TOKEN must be at least 16 characters long' })
  ADMIN_TOKEN?: string;

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
  @Transform(toInt)
  @IsInt({ message: 'UPSTREAM_TIMEOUT_MS must be an integer' })
  @Min(100)
  @Max(600_000)
  UPSTREAM_TIMEOUT_MS: number = 60_000;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'UPSTREAM_DEADLINE_MS must be an integer' })
  @Min(100)
  @Max(3_600_000)
  UPSTREAM_DEADLINE_MS: number = 30_000;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'UPSTREAM_MIN_RATE must be an integer (bytes a second)' })
  @Min(1)
  UPSTREAM_MIN_RATE: number = 8192;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'UPSTREAM_RETRIES must be an integer' })
  @Min(0)
  @Max(20)
  UPSTREAM_RETRIES: number = 5;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'UPSTREAM_RETRY_BASE_MS must be an integer' })
  @Min(1)
  @Max(60_000)
  UPSTREAM_RETRY_BASE_MS: number = 500;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'UPSTREAM_MAX_WAIT_MS must be an integer' })
  @Min(1)
  @Max(3_600_000)
  UPSTREAM_MAX_WAIT_MS: number = 60_000;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'JOB_TTL_HOURS must be an integer' })
  @Min(1)
  JOB_TTL_HOURS: number = 24;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'JOB_LOCK_MS must be an integer' })
  @Min(1000)
  JOB_LOCK_MS: number = 30000;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'JOB_SWEEP_MS must be an integer' })
  @Min(100)
  JOB_SWEEP_MS: number = 60_000;

  @IsOptional()
  @IsIn(['local', 's3'], { message: 'JOB_FILES must be local or s3' })
  JOB_FILES: 'local' | 's3' = 'local';

  @ValidateIf((env: Environment) => env.JOB_FILES === 's3')
  @Transform(emptyAsUnset)
  @Matches(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, {
    message: 'JOB_FILES_S3_BUCKET must be the name of a bucket; it is required when JOB_FILES is s3',
  })
  JOB_FILES_S3_BUCKET?: string;

  @IsOptional()
  @Transform(emptyAsUnset)
  @IsUrl(
    { require_tld: false, require_protocol: true, protocols: ['http', 'https'] },
    { message: 'JOB_FILES_S3_ENDPOINT must be an absolute http(s) URL, such as http://minio:9000' },
  )
  JOB_FILES_S3_ENDPOINT?: string;

  @IsOptional()
  @Transform(emptyAsUnset)
  @IsString()
  JOB_FILES_S3_REGION: string = 'us-east-1';

  @ValidateIf((env: Environment) => env.JOB_FILES_S3_ACCESS_KEY_ID !== undefined)
  @Transform(emptyAsUnset)
  @IsNotEmpty({
    message: 'JOB_FILES_S3_SECRET_ACCESS_KEY must be set when JOB_FILES_S3_ACCESS_KEY_ID is',
  })
  JOB_FILES_S3_SECRET_ACCESS_KEY?: string;

  @ValidateIf((env: Environment) => env.JOB_FILES_S3_SECRET_ACCESS_KEY !== undefined)
  @Transform(emptyAsUnset)
  @IsNotEmpty({
    message: 'JOB_FILES_S3_ACCESS_KEY_ID must be set when JOB_FILES_S3_SECRET_ACCESS_KEY is',
  })
  JOB_FILES_S3_ACCESS_KEY_ID?: string;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'JOB_FILES_S3_FORCE_PATH_STYLE must be true or false' })
  JOB_FILES_S3_FORCE_PATH_STYLE: boolean = false;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'JOB_FILES_REDIRECT must be true or false' })
  JOB_FILES_REDIRECT: boolean = false;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'JOB_FILES_URL_SECONDS must be an integer' })
  @Min(10)
  @Max(3600)
  JOB_FILES_URL_SECONDS: number = 300;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'JOB_CONCURRENCY must be an integer' })
  @Min(1)
  @Max(64)
  JOB_CONCURRENCY: number = 2;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'FILE_TRANSFERS must be an integer' })
  @Min(1)
  @Max(64)
  FILE_TRANSFERS: number = 4;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'HASH_THREADS must be an integer' })
  @Min(1)
  @Max(16)
  HASH_THREADS: number = 1;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'MAX_UPLOAD_BYTES must be an integer' })
  @Min(1)
  MAX_UPLOAD_BYTES: number = 10 * 2 ** 30;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'REQUEST_TIMEOUT_MS must be an integer' })
  @Min(1000)
  REQUEST_TIMEOUT_MS: number = 2 * 3600 * 1000;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'REQUEST_BODY_MIN_RATE must be an integer (bytes a second)' })
  @Min(1)
  REQUEST_BODY_MIN_RATE: number = 1024;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'UPLOAD_INSPECTIONS must be an integer' })
  @Min(1)
  @Max(64)
  UPLOAD_INSPECTIONS: number = 2;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'MAX_ZIP_ENTRIES must be an integer' })
  @Min(1)
  MAX_ZIP_ENTRIES: number = 100_000;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'MAX_ZIP_BYTES must be an integer' })
  @Min(1)
  MAX_ZIP_BYTES: number = 50 * 2 ** 30;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'MAX_PATH_DEPTH must be an integer' })
  @Min(1)
  MAX_PATH_DEPTH: number = 64;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'MAX_PATH_BYTES must be an integer' })
  @Min(1)
  MAX_PATH_BYTES: number = 1024;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'MAX_ZIP_RATIO must be an integer' })
  @Min(2)
  MAX_ZIP_RATIO: number = 200;

  @IsOptional()
  @Transform(emptyAsUnset)
  @Matches(/^smtps?:\/\/.+/, { message: 'SMTP_URL must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  @IsOptional()
  @IsIn(['error', 'warn', 'log', 'debug', 'verbose'])
  LOG_LEVEL: 'error' | 'warn' | 'log' | 'debug' | 'verbose' = 'log';

  @IsOptional()
  @IsIn(['json', 'pretty'], { message: 'LOG_FORMAT must be json or pretty' })
  LOG_FORMAT: 'json' | 'pretty' = 'json';

  @IsOptional()
  @IsIn(['embedded', 'scigraph', 'ols', 'skosmos'], {
    message: 'KEYWORD_ENHANCER must be embedded, scigraph, ols or skosmos',
  })
  KEYWORD_ENHANCER: 'embedded' | 'scigraph' | 'ols' | 'skosmos' = 'embedded';

  @Transform(emptyAsUnset)
  @ValidateIf((env: Environment) => env.KEYWORD_ENHANCER === 'scigraph' || env.SCIGRAPH_URL !== undefined)
  @IsUrl(
    { require_tld: false, require_protocol: true, protocols: ['http', 'https'] },
    {
      message:
        'SCIGRAPH_URL must be the absolute http(s) URL of a SciGraph service, such as ' +
        'https://scigraph.example.org/scigraph; it is required when KEYWORD_ENHANCER is scigraph',
    },
  )
  SCIGRAPH_URL?: string;

  @IsOptional()
  @Transform(emptyAsUnset)
  @IsUrl(
    { require_tld: false, require_protocol: true, protocols: ['http', 'https'] },
    {
      message:
        'OLS_URL must be the absolute http(s) URL of an OLS4 service, such as https://www.ebi.ac.uk/ols4',
    },
  )
  OLS_URL: string = 'https://www.ebi.ac.uk/ols4';

  @IsOptional()
  @Matches(/^\s*[A-Za-z0-9_-]+(\s*,\s*[A-Za-z0-9_-]+)*\s*$/, {
    message: 'OLS_ONTOLOGIES must be a comma-separated list of OLS ontology ids, such as envo,go,chebi',
  })
  OLS_ONTOLOGIES: string = 'envo,go,chebi,uberon,pato,obi';

  @Transform(emptyAsUnset)
  @ValidateIf((env: Environment) => env.KEYWORD_ENHANCER === 'skosmos' || env.SKOSMOS_URL !== undefined)
  @IsUrl(
    { require_tld: false, require_protocol: true, protocols: ['http', 'https'] },
    {
      message:
        'SKOSMOS_URL must be the absolute http(s) URL of a Skosmos service (before /rest/v1), such as ' +
        'https://agrovoc.fao.org/browse; it is required when KEYWORD_ENHANCER is skosmos',
    },
  )
  SKOSMOS_URL?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9_.-]+$/, {
    message: 'SKOSMOS_VOCABULARY must be a Skosmos vocabulary id, such as agrovoc',
  })
  SKOSMOS_VOCABULARY: string = 'agrovoc';

  @IsOptional()
  @Matches(/^[A-Za-z]{2,3}(-[A-Za-z0-9]+)*$/, {
    message: 'SKOSMOS_LANGUAGE must be a language code, such as en',
  })
  SKOSMOS_LANGUAGE: string = 'en';

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'KEYWORD_ENHANCER_TIMEOUT_MS must be an integer' })
  @Min(100)
  @Max(60000)
  KEYWORD_ENHANCER_TIMEOUT_MS: number = 5000;

  @ValidateIf(fairshakeConfigured)
  @Transform(emptyAsUnset)
  @IsUrl(
    { require_tld: false, require_protocol: true, protocols: ['http', 'https'] },
    {
      message:
        'FAIRSHAKE_URL must be an absolute http(s) URL, such as https://fairshake.cloud; FAIRSHAKE_URL and FAIRSHAKE_TOKEN are set together or not at all',
    },
  )
  FAIRSHAKE_URL?: string;

  @ValidateIf(fairshakeConfigured)
  @Transform(emptyAsUnset)
  @IsNotEmpty({
    message:
      'FAIRSHAKE_TOKEN must be set when FAIRSHAKE_URL is; FAIRSHAKE_URL and FAIRSHAKE_TOKEN are set together or not at all',
  })
  FAIRSHAKE_TOKEN?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'FAIRSHAKE_PROJECT_ID must be an integer (the id of a project at FAIRshake)' })
  @Min(1)
  FAIRSHAKE_PROJECT_ID?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'FAIRSHAKE_TIMEOUT_MS must be an integer' })
  @Min(100)
  @Max(120_000)
  FAIRSHAKE_TIMEOUT_MS: number = 10_000;

  @IsOptional()
  @Transform(emptyAsUnset)
  @IsUrl(
    { require_tld: false, require_protocol: true, protocols: ['http', 'https'] },
    {
      message:
        'EMULATION_API_URL must be an absolute http(s) URL, such as https://eaasi-portal.emulation.cloud/environment-proposer/api/v1',
    },
  )
  EMULATION_API_URL?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'EMULATION_TIMEOUT_MS must be an integer' })
  @Min(100)
  @Max(300_000)
  EMULATION_TIMEOUT_MS: number = 15_000;

  @IsOptional()
  @Transform(emptyAsUnset)
  @IsString()
  ANNOUNCEMENT?: string;

  @IsOptional()
  @IsUrl(
    { require_tld: false, require_protocol: true, protocols: ['http', 'https'] },
    {
      message:
        'FAIRSHARE_EVALUATOR_URL must be an absolute http(s) URL, such as https://w3id.org/FAIR_Evaluator/collections/16/evaluate',
    },
  )
  FAIRSHARE_EVALUATOR_URL: string = 'https://w3id.org/FAIR_Evaluator/collections/16/evaluate';

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'FAIRSHARE_EVALUATOR_TIMEOUT_MS must be an integer' })
  @Min(100)
  @Max(3_600_000)
  FAIRSHARE_EVALUATOR_TIMEOUT_MS: number = 300_000;
}

/**
 * Where Redis is: one server at a URL, or the primary that Redis Sentinel names (docs/redis.md). Every
 * connection of a process (the job store, the queues, the API's stores) is made from these.
 */
export type RedisSettings =
  | { kind: 'server'; url: string; password: string | undefined }
  | {
      kind: 'sentinel';
      sentinels: { host: string; port: number }[];
      /** the name the sentinels monitor the primary under */
      name: string;
      /** the sentinels' own password (their requirepass); undefined: none */
      sentinelPassword: string | undefined;
      /** the primary's and replicas' password; undefined: none */
      password: string | undefined;
    };

function redisSettings(env: Environment): RedisSettings {
  if (env.REDIS_SENTINELS === undefined)
    return { kind: 'server', url: env.REDIS_URL ?? DEFAULT_REDIS_URL, password: env.REDIS_PASSWORD };
  return {
    kind: 'sentinel',
    sentinels: sentinelAddresses(env.REDIS_SENTINELS),
    // validation has required the name with REDIS_SENTINELS
    name: env.REDIS_SENTINEL_NAME!,
    sentinelPassword: env.REDIS_SENTINEL_PASSWORD,
    password: env.REDIS_PASSWORD,
  };
}

const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** The addresses of a REDIS_SENTINELS list (already matched against SENTINEL_LIST); none for an empty one. */
function sentinelAddresses(list: string): { host: string; port: number }[] {
  return list
    .split(',')
    .filter((entry) => entry.trim() !== '')
    .map((entry) => {
      const address = entry.trim();
      const colon = address.lastIndexOf(':');
      return {
        host: address.slice(0, colon).replace(/^\[(.*)\]$/, '$1'),
        port: Number(address.slice(colon + 1)),
      };
    });
}

/** Timeouts and retries of requests to remote repositories (the connectors' shared HTTP client). */
export interface UpstreamSettings {
  /** how long a request waits for the answer's headers, and between two chunks of its body */
  timeoutMs: number;
  /** the longest one call may take to its answer's last byte (a file: to its headers), waits left out */
  deadlineMs: number;
  /** the slowest a file's body may come, in bytes a second, while we wait on the upstream */
  minBytesPerSecond: number;
  /** attempts after the first one, on 429, 5xx and connection errors */
  retries: number;
  /** the first wait before a retry; it doubles with each retry */
  retryBaseMs: number;
  /** the longest wait for one retry: an upstream that asks for longer (a spent rate limit) fails at once */
  maxWaitMs: number;
}

/** Per-token and per-address limits of job starts and listings in each window. */
export interface RateLimitSettings {
  enabled: boolean;
  windowSeconds: number;
  jobStartsPerToken: number;
  jobStartsPerAddress: number;
  listingsPerToken: number;
  listingsPerAddress: number;
}

function rateLimitsOf(env: Environment): RateLimitSettings {
  return {
    enabled: env.RATE_LIMITS === 'on',
    windowSeconds: env.RATE_LIMIT_WINDOW_SECONDS,
    jobStartsPerToken: env.RATE_LIMIT_JOB_STARTS,
    jobStartsPerAddress: env.RATE_LIMIT_JOB_STARTS_PER_ADDRESS,
    listingsPerToken: env.RATE_LIMIT_LISTINGS,
    listingsPerAddress: env.RATE_LIMIT_LISTINGS_PER_ADDRESS,
  };
}

/** FAIRshake registration is on when either of its two settings is given; then both must be valid. */
function fairshakeConfigured(env: Environment): boolean {
  return env.FAIRSHAKE_URL !== undefined || env.FAIRSHAKE_TOKEN !== undefined;
}

export interface FairshakeSettings {
  /** base URL of the FAIRshake API, without a trailing slash */
  url: string;
  /** sent as `Authorization: Token <token>`; never logged */
  token: string;
  /** the FAIRshake project that registered digital objects and assessments belong to */
  projectId: number | undefined;
  timeoutMs: number;
}

/** Where finished job files (download zips, upload packages) are kept for the other side to read. */
export type JobFilesSettings =
  | { kind: 'local' }
  | {
      kind: 's3';
      bucket: string;
      /** an S3-compatible service's URL; unset: AWS S3 of `region` */
      endpoint: string | undefined;
      region: string;
      /** unset: the AWS SDK's own chain (environment, shared files, instance roles) */
      credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
      /** bucket in the path (`endpoint/bucket/key`) rather than in the host name, as MinIO and others need */
      forcePathStyle: boolean;
      /** answer a zip download with a redirect to a presigned URL instead of streaming it */
      redirect: boolean;
      /** how long such a URL works */
      urlSeconds: number;
    };

/** Validated settings shared by the API and the worker. */
export class AppConfig {
  readonly port: number;
  readonly host: string;
  /** the worker's own HTTP port for health and metrics; 0: any free port */
  readonly workerHealthPort: number;
  readonly redis: RedisSettings;
  readonly redisPrefix: string;
  /** how long the API waits for Redis to answer a command before answering 503 */
  readonly redisTimeoutMs: number;
  readonly targetsFile: string;
  readonly dataDir: string;
  readonly publicBaseUrl: string | undefined;
  /** the token that opens the queue dashboard; unset: no dashboard */
  readonly adminToken: string | undefined;
  readonly rateLimits: RateLimitSettings;
  /** origins a browser client may call from; `*` any */
  readonly corsOrigins: '*' | string[];
  /** Express's `trust proxy` (hops or addresses of proxies whose X-Forwarded-For is believed); unset: none */
  readonly trustProxy: string | undefined;
  readonly perPage: number;
  readonly statusTimeoutMs: number;
  /** timeouts and retries of requests to remote repositories */
  readonly upstream: UpstreamSettings;
  readonly logLevel: Environment['LOG_LEVEL'];
  readonly logFormat: Environment['LOG_FORMAT'];
  readonly secretKey: string;
  /** how long a job's record and files are kept after it ends */
  readonly jobTtlSeconds: number;
  /** how long a worker's hold on a job lasts without renewal: a killed worker's jobs resume after this */
  readonly jobLockMs: number;
  /** how often a worker looks for expired job files and for runs that no queue holds any more */
  readonly jobSweepMs: number;
  /** where job files live: this host's DATA_DIR, or object storage every API process and worker reaches */
  readonly jobFiles: JobFilesSettings;
  /** jobs one worker process runs at the same time, per kind */
  readonly jobConcurrency: number;
  /** files one job moves at the same time (like rclone's --transfers) */
  readonly fileTransfers: number;
  readonly smtpUrl: string | undefined;
  /** threads that hash whole files (source checksums, read-backs) beside the main thread */
  readonly hashThreads: number;
  /** largest request body of an upload (413 above it) */
  readonly maxUploadBytes: number;
  /** how long a request may take to arrive whole, and the slowest its body may come (408 past either) */
  readonly requestLimits: { timeoutMs: number; minBodyBytesPerSecond: number };
  /** packages one API process inspects at once */
  readonly uploadInspections: number;
  /** what an uploaded zip may hold: entries, decompressed bytes, compression ratio (zip bombs) */
  readonly zipLimits: { maxEntries: number; maxTotalBytes: number; maxRatio: number };
  /** how deep and how long a path that an upload or a transfer writes at a target may be */
  readonly pathLimits: { maxDepth: number; maxBytes: number };
  /**
   * the keyword enhancer: the embedded WordNet one, or a vocabulary service at `url` whose enhancement gives
   * way to the embedded one after `timeoutMs`
   */
  readonly keywordEnhancer: KeywordEnhancerSettings;

  /** where assessments are also registered; undefined: they are only kept in Redis */
  readonly fairshake: FairshakeSettings | undefined;
  /** the EaaSI environment proposer's API (`.../environment-proposer/api/v1`); unset: no emulation service */
  readonly emulationApiUrl: string | undefined;
  /** how long one request to the environment proposer may take */
  readonly emulationTimeoutMs: number;
  /** the banner text web clients show (`/announcements.json`); undefined: no banner */
  readonly announcement: string | undefined;
  /** the FAIR Evaluator collection's `evaluate` URL, and how long one evaluation may take */
  readonly fairshareEvaluator: { url: string; timeoutMs: number };
  constructor(env: Environment, secretKey: string) {
    this.port = env.PORT;
    this.host = env.HOST;
    this.workerHealthPort = env.WORKER_HEALTH_PORT;
    this.redis = redisSettings(env);
    this.redisPrefix = env.REDIS_PREFIX;
    this.redisTimeoutMs = env.REDIS_TIMEOUT_MS;
    this.targetsFile = resolve(env.TARGETS_FILE ?? join(projectRoot(), 'config', 'targets.json'));
    this.dataDir = resolve(env.DATA_DIR);
    this.publicBaseUrl = env.PUBLIC_BASE_URL?.replace(/\/+$/, '');
    this.adminToken = env.ADMIN_TOKEN;
    this.rateLimits = rateLimitsOf(env);
    this.corsOrigins = env.CORS_ORIGINS === '*' ? '*' : env.CORS_ORIGINS.split(',').map((o) => o.trim());
    this.trustProxy = env.TRUST_PROXY;
    this.perPage = env.PER_PAGE;
    this.statusTimeoutMs = env.STATUS_TIMEOUT_MS;
    this.upstream = {
      timeoutMs: env.UPSTREAM_TIMEOUT_MS,
      deadlineMs: env.UPSTREAM_DEADLINE_MS,
      minBytesPerSecond: env.UPSTREAM_MIN_RATE,
      retries: env.UPSTREAM_RETRIES,
      retryBaseMs: env.UPSTREAM_RETRY_BASE_MS,
      maxWaitMs: env.UPSTREAM_MAX_WAIT_MS,
    };
    this.logLevel = env.LOG_LEVEL;
    this.logFormat = env.LOG_FORMAT;
    this.secretKey = secretKey;
    this.jobTtlSeconds = env.JOB_TTL_HOURS * 3600;
    this.jobLockMs = env.JOB_LOCK_MS;
    this.jobSweepMs = env.JOB_SWEEP_MS;
    this.jobFiles = jobFilesSettings(env);
    this.jobConcurrency = env.JOB_CONCURRENCY;
    this.fileTransfers = env.FILE_TRANSFERS;
    this.smtpUrl = env.SMTP_URL;
    this.hashThreads = env.HASH_THREADS;
    this.maxUploadBytes = env.MAX_UPLOAD_BYTES;
    this.requestLimits = {
      timeoutMs: env.REQUEST_TIMEOUT_MS,
      minBodyBytesPerSecond: env.REQUEST_BODY_MIN_RATE,
    };
    this.uploadInspections = env.UPLOAD_INSPECTIONS;
    this.zipLimits = {
      maxEntries: env.MAX_ZIP_ENTRIES,
      maxTotalBytes: env.MAX_ZIP_BYTES,
      maxRatio: env.MAX_ZIP_RATIO,
    };
    this.pathLimits = { maxDepth: env.MAX_PATH_DEPTH, maxBytes: env.MAX_PATH_BYTES };
    this.keywordEnhancer = keywordEnhancerSettings(env);
    this.fairshake = fairshakeSettings(env);
    this.emulationApiUrl = env.EMULATION_API_URL?.replace(/\/+$/, '');
    this.emulationTimeoutMs = env.EMULATION_TIMEOUT_MS;
    this.announcement = env.ANNOUNCEMENT?.trim();
    this.fairshareEvaluator = {
      url: env.FAIRSHARE_EVALUATOR_URL,
      timeoutMs: env.FAIRSHARE_EVALUATOR_TIMEOUT_MS,
    };
  }

  /** where one run of a job keeps its files */
  jobDir(kind: string, ticket: string, runId: string): string {
    return join(this.dataDir, 'jobs', kind, ticket, runId);
  }
}

/** Which keyword enhancer a deployment uses, and where its vocabulary service is. */
export type KeywordEnhancerSettings =
  | { kind: 'embedded' }
  | { kind: 'scigraph'; url: string; timeoutMs: number }
  | { kind: 'ols'; url: string; timeoutMs: number; ontologies: string[] }
  | { kind: 'skosmos'; url: string; timeoutMs: number; vocabulary: string; language: string };

function keywordEnhancerSettings(env: Environment): KeywordEnhancerSettings {
  const withoutSlash = (url: string) => url.replace(/\/+$/, '');
  const timeoutMs = env.KEYWORD_ENHANCER_TIMEOUT_MS;
  switch (env.KEYWORD_ENHANCER) {
    case 'embedded':
      return { kind: 'embedded' };
    case 'scigraph':
      // validation has required SCIGRAPH_URL for scigraph, and SKOSMOS_URL for skosmos
      return { kind: 'scigraph', url: withoutSlash(env.SCIGRAPH_URL!), timeoutMs };
    case 'ols': {
      const ontologies = env.OLS_ONTOLOGIES.split(',').map((id) => id.trim().toLowerCase());
      return { kind: 'ols', url: withoutSlash(env.OLS_URL), timeoutMs, ontologies };
    }
    case 'skosmos':
      return {
        kind: 'skosmos',
        url: withoutSlash(env.SKOSMOS_URL!),
        timeoutMs,
        vocabulary: env.SKOSMOS_VOCABULARY,
        language: env.SKOSMOS_LANGUAGE,
      };
  }
}

function fairshakeSettings(env: Environment): FairshakeSettings | undefined {
  if (!env.FAIRSHAKE_URL || !env.FAIRSHAKE_TOKEN) return undefined;
  return {
    url: env.FAIRSHAKE_URL.replace(/\/+$/, ''),
    token: env.FAIRSHAKE_TOKEN,
    projectId: env.FAIRSHAKE_PROJECT_ID,
    timeoutMs: env.FAIRSHAKE_TIMEOUT_MS,
  };
}

function jobFilesSettings(env: Environment): JobFilesSettings {
  if (env.JOB_FILES === 'local') return { kind: 'local' };
  const { JOB_FILES_S3_ACCESS_KEY_ID: accessKeyId, JOB_FILES_S3_SECRET_ACCESS_KEY: secretAccessKey } = env;
  return {
    kind: 's3',
    // validation has required the bucket for s3
    bucket: env.JOB_FILES_S3_BUCKET!,
    endpoint: env.JOB_FILES_S3_ENDPOINT,
    region: env.JOB_FILES_S3_REGION,
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    forcePathStyle: env.JOB_FILES_S3_FORCE_PATH_STYLE,
    redirect: env.JOB_FILES_REDIRECT,
    urlSeconds: env.JOB_FILES_URL_SECONDS,
  };
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
  if (env.REDIS_SENTINELS !== undefined && env.REDIS_URL !== undefined)
    problems.push('set REDIS_URL (one Redis server) or REDIS_SENTINELS (Redis Sentinel), not both');
  for (const { port } of sentinelAddresses(env.REDIS_SENTINELS ?? ''))
    if (port < 1 || port > 65535) problems.push(`REDIS_SENTINELS: port ${port} is not between 1 and 65535`);
  if (env.JOB_FILES_REDIRECT === true && env.JOB_FILES !== 's3')
    problems.push('JOB_FILES_REDIRECT=true needs JOB_FILES=s3 (a file on a local disk has no URL to send)');
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
