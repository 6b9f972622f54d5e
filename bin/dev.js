#!/usr/bin/env -S node --no-node-snapshot
// The svcdb command line, running the TypeScript sources directly (oclif loads them through tsx)
// with development behaviour: full stack traces and no command cache. oclif.manifest.json is
// ignored here: it describes the last build, and help and flags must come from the modules.
import { fileURLToPath } from 'node:url';
import { execute } from '@oclif/core';
import { honourNoColor, loadWithoutManifest } from './setup.js';

honourNoColor();
const root = fileURLToPath(new URL('..', import.meta.url));
await execute({ development: true, dir: import.meta.url, loadOptions: await loadWithoutManifest(root) });
