import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PathLimits, ZipLimits } from '@app/archive';
import { loadSettings, ProcessSettings, type Setting } from '@app/config';
import { UpstreamSettings } from '@app/connectors';
import { JobFilesSettings } from '@app/job-files';
import { JobSettings, RedisSettings } from '@app/jobs';
import { KeywordSettings } from '@app/keywords';
import { MailSettings } from '@app/mail';
import { API_SETTINGS } from '../../apps/api/src/api.settings';
import { FairshakeSettings } from '../../apps/api/src/assessment/fairshake.settings';
import { HttpSettings } from '../../apps/api/src/common/http.settings';
import { RateLimitSettings } from '../../apps/api/src/common/rate-limit.settings';
import { WORKER_SETTINGS, WorkerSettings } from '../../apps/worker/src/worker.settings';
import { CONFIGURATION_PAGE, configurationPage } from '../../scripts/configuration-page';

const SECRET_KEY = 'a-secret-of-enough-length';

/** The one error a process would stop with, for `env`. */
function startupError(types: typeof API_SETTINGS, env: Record<string, string>): string {
  try {
    loadSettings(types, { SECRET_KEY, ...env });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the settings were accepted');
}

describe("the processes' settings", () => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'presqt-settings-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('name a bad setting of each of two libs in the one error', () => {
    // UPSTREAM_DEADLINE_MS is the connectors', KEYWORD_ENHANCER_TIMEOUT_MS the keywords'
    expect(
      startupError(API_SETTINGS, { UPSTREAM_DEADLINE_MS: '5', KEYWORD_ENHANCER_TIMEOUT_MS: 'soon' }),
    ).toBe(
      [
        'Invalid configuration (2 problems):',
        "  - UPSTREAM_DEADLINE_MS must be an integer from 100 to 3600000 (given: '5')",
        "  - KEYWORD_ENHANCER_TIMEOUT_MS must be an integer from 100 to 60000 (given: 'soon')",
      ].join('\n'),
    );
  });

  it('list every bad setting together, those of the process and of the libs it uses', () => {
    const env = {
      WORKER_HEALTH_PORT: '70000',
      REDIS_URL: 'http://redis:6379',
      JOB_TTL_HOURS: '0',
      JOB_FILES: 's3',
      MAX_ZIP_RATIO: '1.5',
      LOG_FORMAT: 'xml',
      SMTP_URL: 'mail.example.org',
      JOB_FILES_REDIRECT: 'yes',
    };
    expect(startupError(WORKER_SETTINGS, env)).toBe(
      [
        'Invalid configuration (8 problems):',
        "  - WORKER_HEALTH_PORT must be an integer from 0 to 65535 (given: '70000')",
        "  - REDIS_URL must be a redis:// or rediss:// URL (given: 'http://redis:6379')",
        "  - JOB_TTL_HOURS must be an integer of at least 1 (given: '0')",
        "  - JOB_FILES_REDIRECT must be true or false (given: 'yes')",
        '  - JOB_FILES_S3_BUCKET must be the name of a bucket (3 to 63 lower-case letters, digits, . and -); it is required when JOB_FILES is s3',
        "  - MAX_ZIP_RATIO must be an integer of at least 2 (given: '1.5')",
        "  - LOG_FORMAT must be json or pretty (given: 'xml')",
        "  - SMTP_URL must be an smtp:// or smtps:// URL (given: 'mail.example.org')",
      ].join('\n'),
    );
  });

  it('never show a credential, nor the password in a URL', () => {
    const message = startupError(API_SETTINGS, {
      ADMIN_TOKEN: 'short-secret',
      FAIRSHAKE_TOKEN: 'fairshake-secret',
      REDIS_URL: 'http://app:redis-secret@redis:6379',
    });
    expect(message).toContain(
      'ADMIN_TOKEN must be at least 16 characters long (given: 12 characters, not shown)',
    );
    expect(message).toContain("REDIS_URL must be a redis:// or rediss:// URL (given: 'http://…@redis:6379')");
    expect(message).toContain('FAIRSHAKE_URL must be an absolute http(s) URL');
    expect(message).not.toMatch(/secret/);
  });

  it('apply their defaults when nothing is set', () => {
    const settings = loadSettings(API_SETTINGS, { SECRET_KEY, DATA_DIR: dataDir });
    expect({ ...settings.get(HttpSettings) }).toEqual({
      port: 8000,
      publicBaseUrl: undefined,
      corsOrigins: '*',
      trustProxy: undefined,
      announcement: undefined,
    });
    expect(settings.get(RedisSettings)).toMatchObject({ prefix: 'presqt', timeoutMs: 1000 });
    expect(settings.get(RedisSettings).address).toEqual({
      kind: 'server',
      url: 'redis://127.0.0.1:6379',
      password: undefined,
    });
    expect(settings.get(JobSettings).ttlSeconds).toBe(24 * 3600);
    expect(settings.get(JobFilesSettings).store).toEqual({ kind: 'local' });
    expect({ ...settings.get(UpstreamSettings) }).toEqual({
      timeoutMs: 60_000,
      deadlineMs: 30_000,
      minBytesPerSecond: 8192,
      retries: 5,
      retryBaseMs: 500,
      maxWaitMs: 60_000,
    });
    expect({ ...settings.get(ZipLimits) }).toEqual({
      maxEntries: 100_000,
      maxTotalBytes: 50 * 2 ** 30,
      maxRatio: 200,
    });
    expect({ ...settings.get(PathLimits) }).toEqual({ maxDepth: 64, maxBytes: 1024 });
    expect(settings.get(RateLimitSettings).enabled).toBe(true);
    expect(settings.get(KeywordSettings).enhancerSettings).toEqual({ kind: 'embedded' });
    expect(settings.get(FairshakeSettings).account).toBeUndefined();
    expect(settings.get(ProcessSettings)).toMatchObject({ host: '0.0.0.0', dataDir, secretKey: SECRET_KEY });

    const worker = loadSettings(WORKER_SETTINGS, { DATA_DIR: dataDir });
    expect({ ...worker.get(WorkerSettings) }).toEqual({
      healthPort: 8001,
      jobConcurrency: 2,
      fileTransfers: 4,
    });
    expect(worker.get(MailSettings).smtpUrl).toBeUndefined();
  });

  it('without SECRET_KEY, share one key generated into DATA_DIR between processes and restarts', () => {
    const api = loadSettings(API_SETTINGS, { DATA_DIR: dataDir }).get(ProcessSettings).secretKey;
    const worker = loadSettings(WORKER_SETTINGS, { DATA_DIR: dataDir }).get(ProcessSettings).secretKey;
    expect(api).toMatch(/^[0-9a-f]{64}$/);
    expect(worker).toBe(api);
    expect(readFileSync(join(dataDir, 'secret.key'), 'utf8')).toBe(api);
    expect(loadSettings(API_SETTINGS, { DATA_DIR: join(dataDir, '.') }).get(ProcessSettings).dataDir).toBe(
      resolve(dataDir),
    );
  });

  it('are read by each process only where it uses them', () => {
    // the worker serves no HTTP API and registers no assessments
    expect(() =>
      loadSettings(WORKER_SETTINGS, { SECRET_KEY, PORT: 'eighty', FAIRSHAKE_URL: 'x' }),
    ).not.toThrow();
    expect(startupError(API_SETTINGS, { PORT: 'eighty' })).toContain('PORT must be an integer');
    // the API sends no mail
    expect(() => loadSettings(API_SETTINGS, { SECRET_KEY, SMTP_URL: 'x' })).not.toThrow();
  });

  it('are declared once across both processes, and docs/configuration.md lists each as declared', () => {
    expect(() =>
      loadSettings([...new Set([...API_SETTINGS, ...WORKER_SETTINGS])], { SECRET_KEY }),
    ).not.toThrow();
    // `npm run docs:configuration` writes the page anew; Prettier aligns its tables
    const unaligned = (page: string) => page.replace(/ *\| */g, '|').replace(/\|-+(?=\|)/g, '|-');
    expect(unaligned(readFileSync(CONFIGURATION_PAGE, 'utf8'))).toBe(unaligned(configurationPage()));
  });

  it("are in the README's summary as declared: each variable it names, with its default", () => {
    const declared = new Map<string, Setting<unknown>>(
      [...API_SETTINGS, ...WORKER_SETTINGS].flatMap((type) =>
        Object.values(type.declarations).map((setting) => [setting.env, setting] as const),
      ),
    );
    const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## Deploying'));
    const rows = [...section.matchAll(/^\| (`[A-Z_]+`(?:, `[A-Z_]+`)*) +\| (.+?) +\|/gm)];
    expect(rows.length).toBeGreaterThan(10);
    for (const [, variables, defaults] of rows) {
      const names = variables.split(', ').map((name) => name.replace(/`/g, ''));
      const shown = defaults.split(', ');
      names.forEach((name, n) =>
        expect({ name, default: shown[shown.length === 1 ? 0 : n] }).toEqual({
          name,
          default: declared.get(name)?.shownDefault,
        }),
      );
    }
  });
});
