#!/usr/bin/env node
// Bundles the web console (web/) into dist/console/: the assets under content-hashed names, so
// the node can let browsers cache them for a year, beside an index.html that names them and is
// never cached. Each asset is also written gzip- and brotli-compressed, so the node serves the
// smallest form a browser accepts without compressing on every request.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = join(root, 'dist', 'console');
const assets = join(outdir, 'assets');
const entry = 'web/main.tsx';

rmSync(outdir, { recursive: true, force: true });
mkdirSync(assets, { recursive: true });

const result = await build({
  absWorkingDir: root,
  entryPoints: [entry],
  bundle: true,
  // The projection editor is its own chunk, loaded when a page needs it.
  splitting: true,
  format: 'esm',
  target: 'es2022',
  outdir: assets,
  entryNames: '[name]-[hash]',
  chunkNames: '[name]-[hash]',
  minify: true,
  legalComments: 'none',
  metafile: true,
  tsconfig: 'web/tsconfig.json',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  logLevel: 'warning',
});

const outputs = Object.entries(result.metafile.outputs);
const [mainPath, main] = outputs.find(([, output]) => output.entryPoint === entry);
const script = basename(mainPath);
const style = basename(main.cssBundle);

// The icon, named by its content hash like the bundle, so browsers cache it with the assets.
const iconBytes = readFileSync(join(root, 'web', 'favicon.svg'));
const icon = `favicon-${createHash('sha256').update(iconBytes).digest('hex').slice(0, 8)}.svg`;
writeFileSync(join(assets, icon), iconBytes);

// No inline script or style: the content security policy allows only files of the node's own.
const index = '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
  + '<meta name="viewport" content="width=device-width, initial-scale=1">'
  + '<title>svcdb console</title>'
  + `<link rel="icon" type="image/svg+xml" href="/web/assets/${icon}">`
  + `<link rel="stylesheet" href="/web/assets/${style}">`
  + `<script type="module" src="/web/assets/${script}"></script>`
  + '</head><body><div id="app"></div><noscript>The svcdb console needs JavaScript.</noscript></body></html>\n';
writeFileSync(join(outdir, 'index.html'), index);

let gzipBytes = 0;
for (const name of readdirSync(assets)) {
  const bytes = readFileSync(join(assets, name));
  const gzipped = gzipSync(bytes, { level: 9 });
  gzipBytes += gzipped.length;
  writeFileSync(join(assets, `${name}.gz`), gzipped);
  writeFileSync(join(assets, `${name}.br`), brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
}
// The console's weight, said on every build so growth is seen (test/console/console-size.test.ts bounds it).
console.log(`console: ${(gzipBytes / 1024).toFixed(1)} KiB gzip (scripts, styles, icon, editor)`);
