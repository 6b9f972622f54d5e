// oclif.manifest.json is what `svcdb --help` and command dispatch read instead of importing every
// command: `npm run build` writes it, the package ships it, and it must describe the compiled
// commands exactly, or help would show flags that are gone or miss new ones.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { MANIFEST_FILE, renderManifest } from '../../src/cli/command-manifest.js';
import { repositoryRoot, runCli } from '../helpers/cli.js';

const packageJson = JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as {
  version: string; files: string[]; scripts: Record<string, string>;
};

/** Where two manifests part, for the failure message: a line number and both lines. */
function firstDifference(onDisk: string, fresh: string): string {
  const [a, b] = [onDisk.split('\n'), fresh.split('\n')];
  const line = a.findIndex((text, index) => text !== b[index]);
  if (line === -1) return a.length === b.length ? '' : ` (the fresh one has ${b.length - a.length} more lines)`;
  return ` (line ${line + 1}: on disk ${JSON.stringify(a[line])}, fresh ${JSON.stringify(b[line])})`;
}

t.test('the manifest on disk is the one the compiled commands declare now (npm run build writes it)', async (t) => {
  let onDisk: string | undefined;
  try {
    onDisk = readFileSync(join(repositoryRoot, MANIFEST_FILE), 'utf8');
  } catch {
    onDisk = undefined;
  }
  t.ok(onDisk !== undefined, `${MANIFEST_FILE} exists after npm run build`);
  const fresh = await renderManifest(repositoryRoot);
  t.ok(onDisk === fresh, `${MANIFEST_FILE} is not stale${onDisk === undefined ? '' : firstDifference(onDisk, fresh)}`);
  const manifest = JSON.parse(fresh) as { version: string; commands: Record<string, { relativePath: string[] }> };
  t.equal(manifest.version, packageJson.version, 'the version oclif checks it against');
  t.ok(Object.keys(manifest.commands).includes('backup:verify'), 'nested commands are listed');
  for (const [id, command] of Object.entries(manifest.commands)) {
    t.equal(command.relativePath[0], 'dist', `${id} points at the compiled module`);
  }
});

t.test('the build writes it and the package ships it', async (t) => {
  t.match(packageJson.scripts.build, /write-manifest/, 'npm run build runs scripts/write-manifest.js');
  t.ok(packageJson.files.includes(MANIFEST_FILE), `"files" lists ${MANIFEST_FILE}`);
  const ignored = readFileSync(join(repositoryRoot, '.gitignore'), 'utf8').split('\n');
  t.ok(ignored.includes(MANIFEST_FILE), 'a build product, not checked in');
});

t.test('svcdb --help lists every command of the manifest', async (t) => {
  const help = await runCli(['--help']);
  t.equal(help.code, 0, help.stderr);
  for (const command of ['serve', 'backup', 'restore', 'cert-reload']) t.match(help.stdout, new RegExp(`^  ${command} `, 'm'), command);
});
