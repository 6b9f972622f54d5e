#!/usr/bin/env node
// The svcdb command line, running the TypeScript sources directly (oclif loads them through tsx)
// with development behaviour: full stack traces and no command cache.
import { execute } from '@oclif/core';

await execute({ development: true, dir: import.meta.url });
