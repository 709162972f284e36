import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const PACKAGE_NAME = 'presqt-broker';

/**
 * The directory holding this project's package.json. Shipped files (the default targets file, demo data)
 * are found from here, because the built bundles and the test sources sit at different depths.
 */
export function projectRoot(from: string = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string };
      if (name === PACKAGE_NAME) return dir;
    }
    if (dirname(dir) === dir) return process.cwd();
  }
}
