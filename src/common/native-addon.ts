import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRoot } from './package-root.js';

/**
 * Loads one of the package's native modules (native/*.c, built by `npm ci` with node-gyp); the
 * error names the file and the command that builds it.
 */
export function loadNativeAddon<T>(targetName: string, purpose: string): T {
  const path = join('native', 'build', 'Release', `${targetName}.node`);
  const root = packageRoot(import.meta.url);
  try {
    return createRequire(import.meta.url)(join(root, path)) as T;
  } catch (error) {
    throw new Error(`the native ${purpose} (${path}) cannot be loaded: build it with \`npm rebuild\` in ${root} (${(error as Error).message})`);
  }
}
