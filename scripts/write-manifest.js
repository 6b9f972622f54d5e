#!/usr/bin/env node
// Writes oclif.manifest.json from the compiled commands in dist/ (run by `npm run build` after
// tsc), so `svcdb --help` and command dispatch need not import every command module.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MANIFEST_FILE, renderManifest } from '../dist/src/cli/command-manifest.js';

const root = fileURLToPath(new URL('..', import.meta.url));
writeFileSync(new URL(`../${MANIFEST_FILE}`, import.meta.url), await renderManifest(root));
