#!/usr/bin/env node
// Writes packaging/svcdb.yaml, the sample configuration, from the compiled option schema (run
// through `npm run sample-config`, which builds first). test/ops/packaging.test.ts fails when the
// committed file and the schema drift apart.
import { writeFileSync } from 'node:fs';
import { sampleConfig } from '../dist/src/common/options/config-yaml.js';

const file = new URL('../packaging/svcdb.yaml', import.meta.url);
writeFileSync(file, sampleConfig());
console.log(`wrote ${file.pathname}`);
