/**
 * The projection options in their three forms, their checks, and what /info says about them on a
 * real node built from them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import pino from 'pino';
import { loadOptions } from '../../src/common/options/load.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { daemonOptions } from '../../src/daemon/options.js';
import { Engine } from '../../src/storage/engine.js';
import { ADMIN_AUTH } from '../helpers/auth.js';

t.test('run-projections, start-standard-projections, execution timeout and memory limit: flag, variable, file', async (t) => {
  const dir = t.testdir();
  const file = join(dir, 'svcdb.yaml');
  writeFileSync(file, 'RunProjections: System\nProjectionMemoryLimitMb: 64\n');
  const fromFile = loadOptions({ flags: { config: file }, env: {}, cwd: dir }).values;
  t.equal(fromFile.runProjections, 'System');
  t.equal(fromFile.projectionMemoryLimitMb, 64);
  const fromEnv = loadOptions({ flags: {}, env: { SVC_RUN_PROJECTIONS: 'all', SVC_START_STANDARD_PROJECTIONS: 'true', SVC_PROJECTION_EXECUTION_TIMEOUT: '500' }, cwd: dir }).values;
  t.equal(fromEnv.runProjections, 'All', 'values are case-insensitive');
  t.equal(fromEnv.startStandardProjections, true);
  t.equal(fromEnv.projectionExecutionTimeout, 500);
  const defaults = loadOptions({ flags: {}, env: {}, cwd: dir }).values;
  t.same([defaults.runProjections, defaults.startStandardProjections, defaults.projectionExecutionTimeout, defaults.projectionMemoryLimitMb], ['None', false, 250, 128]);
  t.throws(() => loadOptions({ flags: { runProjections: 'Some' }, env: {}, cwd: dir }), { code: 'SVCDB_ERR_OPTION_INVALID' });
  t.throws(() => loadOptions({ flags: { projectionExecutionTimeout: '0' }, env: {}, cwd: dir }), { code: 'SVCDB_ERR_OPTION_INVALID' });
  t.throws(() => loadOptions({ flags: { projectionMemoryLimitMb: '2' }, env: {}, cwd: dir }), { code: 'SVCDB_ERR_OPTION_INVALID' });
});

for (const [mode, served] of [['None', false], ['System', true], ['All', true]] as const) {
  t.test(`--run-projections ${mode}: /info says projections ${served}, and the API is ${served ? 'served' : '404'}`, async (t) => {
    const dir = t.testdir();
    const loaded = daemonOptions({ db: join(dir, 'db'), httpPort: 0, runProjections: mode, logLevel: 'warn' }, dir);
    const daemon = await Daemon.start(loaded, {
      logger: pino({ level: 'silent' }), version: '0.0.0-test',
      openStorage: (options) => Engine.open(options),
    });
    t.teardown(() => daemon.stop());
    const url = `http://127.0.0.1:${daemon.address.port}`;
    const info = await (await fetch(`${url}/info`)).json() as { features: { projections: boolean } };
    t.equal(info.features.projections, served);
    const listing = await fetch(`${url}/projections/any`, { headers: { authorization: ADMIN_AUTH } });
    t.equal(listing.status, served ? 200 : 404);
  });
}
