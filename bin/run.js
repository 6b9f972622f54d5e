#!/usr/bin/env -S node --no-node-snapshot
// The svcdb command line, running the compiled code in dist/ (build it with `npm run build`).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execute, Plugin, settings } from '@oclif/core';

// Always the compiled code, whatever NODE_ENV says; bin/dev.js is the way to run the sources.
settings.enableAutoTranspile = false;

// NO_COLOR (no-color.org) and --no-color turn colours off, whatever FORCE_COLOR says: chalk reads
// only FORCE_COLOR when it is set, and never NO_COLOR.
const words = process.argv.slice(2);
const flagsEnd = words.indexOf('--');
if (process.env.NO_COLOR || (flagsEnd === -1 ? words : words.slice(0, flagsEnd)).includes('--no-color')) process.env.FORCE_COLOR = '0';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Whether oclif.manifest.json was written after the compiled commands. tsc rewrites every output
 * file, so a `tsc` without the manifest step leaves command files newer than the manifest; oclif
 * would then show the help and flags of the previous build.
 */
function manifestIsCurrent() {
  let written;
  try {
    written = statSync(join(root, 'oclif.manifest.json')).mtimeMs;
  } catch {
    return true; // No manifest: oclif reads the command modules itself.
  }
  const commands = join(root, 'dist', 'src', 'commands');
  return readdirSync(commands, { recursive: true })
    .filter((file) => String(file).endsWith('.js'))
    .every((file) => statSync(join(commands, String(file))).mtimeMs <= written);
}

let loadOptions;
if (!manifestIsCurrent()) {
  const plugin = new Plugin({ root, type: 'core', isRoot: true, ignoreManifest: true });
  await plugin.load();
  // Plugins given to oclif replace the ones package.json lists (help, autocomplete): load those too.
  const plugins = new Map([[plugin.name, plugin]]);
  for (const name of plugin.pjson.oclif.plugins ?? []) {
    const dependency = new Plugin({ root: join(root, 'node_modules', name), type: 'core' });
    await dependency.load();
    plugins.set(dependency.name, dependency);
  }
  loadOptions = { root, plugins };
}
await execute({ dir: import.meta.url, loadOptions });
