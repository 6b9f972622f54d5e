import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory of the package a module belongs to: the nearest one above `moduleUrl` holding a
 * package.json. The same from the TypeScript sources and from their build in `dist/`.
 */
export function packageRoot(moduleUrl: string): string {
  let directory = dirname(fileURLToPath(moduleUrl));
  while (!existsSync(join(directory, 'package.json'))) {
    const parent = dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  return directory;
}
