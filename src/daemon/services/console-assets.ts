/**
 * The web console's files, built by `npm run build` into `dist/console/`: read once at start and
 * served from memory. Assets have content-hashed names and come with their gzip and brotli forms,
 * written at build time, so a request costs no file access and no compression.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { packageRoot } from '../../common/package-root.js';

export type ContentEncoding = 'br' | 'gzip' | 'identity';

export interface ConsoleFile {
  contentType: string;
  /** Each form the file exists in, by its content coding. */
  bodies: Partial<Record<ContentEncoding, Buffer>> & { identity: Buffer };
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

const COMPRESSED_FORMS: ReadonlyArray<[ContentEncoding, string]> = [['br', '.br'], ['gzip', '.gz']];

/** `dist/console/` of the package this module belongs to, found from this file's own place. */
export function defaultConsoleDirectory(): string {
  return join(packageRoot(import.meta.url), 'dist', 'console');
}

export class ConsoleAssets {
  private constructor(readonly index: ConsoleFile, private readonly assets: ReadonlyMap<string, ConsoleFile>) {}

  /** The console in `directory`, or undefined when it has not been built there. */
  static load(directory: string): ConsoleAssets | undefined {
    const indexPath = join(directory, 'index.html');
    const assetsPath = join(directory, 'assets');
    if (!existsSync(indexPath) || !existsSync(assetsPath)) return undefined;
    const index: ConsoleFile = { contentType: CONTENT_TYPES['.html'], bodies: { identity: readFileSync(indexPath) } };
    const assets = new Map<string, ConsoleFile>();
    for (const name of readdirSync(assetsPath)) {
      const contentType = CONTENT_TYPES[extname(name)];
      if (contentType === undefined) continue;
      const bodies: ConsoleFile['bodies'] = { identity: readFileSync(join(assetsPath, name)) };
      for (const [encoding, suffix] of COMPRESSED_FORMS) {
        const path = join(assetsPath, name + suffix);
        if (existsSync(path)) bodies[encoding] = readFileSync(path);
      }
      assets.set(name, { contentType, bodies });
    }
    return new ConsoleAssets(index, assets);
  }

  asset(name: string): ConsoleFile | undefined {
    return this.assets.get(name);
  }
}
