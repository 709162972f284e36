import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setting } from './setting';
import { ConfigError, Settings } from './settings';

/** What every process of a deployment reads: where it listens, where it keeps its data, the shared key. */
export class ProcessSettings extends Settings('Every process', {
  host: setting.text('HOST', {
    default: '0.0.0.0',
    doc: "the address the API and the worker's health port listen on",
  }),
  dataDir: setting.path('DATA_DIR', {
    default: './var',
    doc: "job files, filesystem targets' data, the generated secret key",
  }),
  givenSecretKey: setting.text('SECRET_KEY', {
    minLength: 16,
    secret: true,
    shownDefault: 'generated once into `DATA_DIR/secret.key`',
    doc: 'key for tickets and for tokens in queue payloads; set the same value on every API and worker process of a deployment',
  }),
}) {
  /** SECRET_KEY, or the key generated once into DATA_DIR */
  readonly secretKey: string = this.givenSecretKey ?? persistentSecret(this.dataDir);
}

/**
 * Without SECRET_KEY, one random key is made once and kept in the data directory, so that tickets and
 * encrypted queue payloads stay valid across restarts and between the API and the worker. Creating it
 * with the exclusive flag lets two processes starting together agree on one key.
 */
function persistentSecret(dataDir: string): string {
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
