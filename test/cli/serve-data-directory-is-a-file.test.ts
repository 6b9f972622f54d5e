// Regression: `svcdb serve --db FILE` (or `--index FILE`) failed with a raw EEXIST from mkdir and
// exit 1. A data directory option that names an existing file is a bad option value: exit 2,
// SVCDB_ERR_OPTION_INVALID naming the option, and the file is left as it was.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { runCli } from '../helpers/cli.js';

interface ErrorJson {
  error?: { code: string; message: string; details: { option?: string } };
}

for (const option of ['--db', '--index'] as const) {
  t.test(`serve ${option} naming a file is refused as a bad option`, async (t) => {
    const directory = t.testdir();
    const file = join(directory, 'a-file');
    writeFileSync(file, 'not a directory');
    const paths = option === '--db' ? ['--db', file] : ['--db', join(directory, 'db'), '--index', file];
    const exit = await runCli(['serve', ...paths, '--http-port', '0', '--json']);
    t.equal(exit.code, 2, `exit code 2: a bad option ${exit.stdout}`);
    const json = JSON.parse(exit.stdout) as ErrorJson;
    t.equal(json.error?.code, 'SVCDB_ERR_OPTION_INVALID');
    t.equal(json.error?.details.option, option, 'the error names the option');
    t.match(json.error?.message, new RegExp(`point ${option} at a directory`), 'and says what to fix');
    t.equal(readFileSync(file, 'utf8'), 'not a directory', 'the file is untouched');
  });
}
