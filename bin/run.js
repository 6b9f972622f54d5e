#!/usr/bin/env -S node --no-node-snapshot
// The svcdb command line, running the compiled code in dist/ (build it with `npm run build`).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execute, settings } from '@oclif/core';
import { honourNoColor, loadWithoutManifest } from './setup.js';

// Always the compiled code, whatever NODE_ENV says; bin/dev.js is the way to run the sources.
settings.enableAutoTranspile = false;

honourNoColor();

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

const loadOptions = manifestIsCurrent() ? undefined : await loadWithoutManifest(root);
await execute({ dir: import.meta.url, loadOptions });
