// The console's weight as browsers download it: every asset of the built console (dist/console,
// `node scripts/build-console.js`) gzip-compressed, together under 150 KiB.
import t from 'tap';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repositoryRoot } from '../helpers/cli.js';

const GZIP_BYTES_MAX = 150 * 1024;
const assets = join(repositoryRoot, 'dist', 'console', 'assets');

t.test('the console downloads in under 150 KiB of gzip', async (t) => {
  const sizes = readdirSync(assets).filter((name) => name.endsWith('.gz')).map((name) => [name.slice(0, -3), statSync(join(assets, name)).size] as const);
  t.ok(sizes.some(([name]) => name.endsWith('.js')) && sizes.some(([name]) => name.endsWith('.css')), 'scripts and styles were built');
  const total = sizes.reduce((sum, [, bytes]) => sum + bytes, 0);
  for (const [name, bytes] of sizes) t.comment(`${name}: ${(bytes / 1024).toFixed(1)} KiB gzip`);
  t.comment(`console in all: ${(total / 1024).toFixed(1)} KiB gzip`);
  t.ok(total < GZIP_BYTES_MAX, `${total} bytes`);
});
