import type { BagSource } from './source';
import { SUPPORTED_ALGORITHMS, parseManifest, type Problems } from './tag-files';

/**
 * The checksums a bag's payload manifests give, by payload path (relative to data/), read without touching
 * the payload: for a bag this service wrote itself and reads back, whose files are then checked one by one
 * as they stream. Throws when a manifest cannot be parsed.
 */
export async function readPayloadManifests(source: BagSource): Promise<Map<string, Record<string, string>>> {
  const problems: Problems = { errors: [], warnings: [] };
  const checksums = new Map<string, Record<string, string>>();
  for (const entry of await source.list()) {
    const algorithm = /^manifest-([a-z0-9]+)\.txt$/.exec(entry.path)?.[1];
    if (entry.isDirectory || algorithm === undefined || !SUPPORTED_ALGORITHMS.includes(algorithm)) continue;
    const text = (await source.readTagFile(entry.path)).toString('utf8');
    const manifest = { fileName: entry.path, algorithm, payload: true, listsEachFileOnce: true };
    for (const { path, checksum } of parseManifest(text, manifest, problems).values()) {
      const payloadPath = path.slice('data/'.length);
      checksums.set(payloadPath, { ...checksums.get(payloadPath), [algorithm]: checksum });
    }
  }
  if (problems.errors.length > 0) throw new Error(`The bag's manifests are damaged: ${problems.errors[0]}`);
  return checksums;
}
