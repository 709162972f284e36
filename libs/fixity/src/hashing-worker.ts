import type * as Crypto from 'node:crypto';
import type * as Fs from 'node:fs';
import { Worker, type MessagePort } from 'node:worker_threads';

/** The modules a thread body gets from the thread it runs in (it cannot import: see `startHashingWorker`). */
export interface ThreadModules {
  port: MessagePort;
  crypto: typeof Crypto;
  fs: typeof Fs;
}

/** A function run as a thread's whole program: it may use only its arguments, never this module's scope. */
export type ThreadBody<Settings> = (modules: ThreadModules, settings: Settings) => void;

/**
 * Starts a hashing thread running each of `programs` (each attaches its own listener to the port). A body is
 * type-checked and linted with the rest of the code and sent to the thread as its compiled source text, so it
 * works the same from the built bundles (which have no separate file for a thread to load) and from the test
 * sources. It therefore takes its modules and settings as arguments. A hashing thread needs almost no heap:
 * small limits keep the process's memory flat.
 */
export function startHashingWorker(programs: { body: ThreadBody<unknown>; settings: unknown }[]): Worker {
  const modules =
    "{ port: require('node:worker_threads').parentPort, crypto: require('node:crypto'), fs: require('node:fs') }";
  const calls = programs.map(
    ({ body, settings }) => `(${body.toString()})(modules, ${JSON.stringify(settings) ?? 'undefined'});`,
  );
  return new Worker(`const modules = ${modules};\n${calls.join('\n')}`, {
    eval: true,
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4, codeRangeSizeMb: 8 },
  });
}
