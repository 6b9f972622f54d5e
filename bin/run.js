#!/usr/bin/env node
// The svcdb command line, running the compiled code in dist/ (build it with `npm run build`).
import { execute, settings } from '@oclif/core';

// Always the compiled code, whatever NODE_ENV says; bin/dev.js is the way to run the sources.
settings.enableAutoTranspile = false;

await execute({ dir: import.meta.url });
