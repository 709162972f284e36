import { Worker } from 'node:worker_threads';

/**
 * Starts a hashing thread from inline code (so it works the same from the built bundles and from the test
 * sources). A hashing thread needs almost no heap: small limits keep the process's memory flat.
 */
export function startHashingWorker(source: string): Worker {
  return new Worker(source, {
    eval: true,
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4, codeRangeSizeMb: 8 },
  });
}
