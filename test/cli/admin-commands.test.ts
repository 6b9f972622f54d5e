// `svcdb user`, `svcdb projection` and `svcdb subscription` as an operator runs them: child
// processes against a real `svcdb serve` child that runs projections.
import { join } from 'node:path';
import t from 'tap';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { runCli, startServer, type CliExit, type CliOptions } from '../helpers/cli.js';
import { tempDirectory } from '../helpers/engine.js';
import { pollUntilAsync } from '../helpers/wait.js';

t.test('users, projections and subscription groups through the CLI', async (t) => {
  const server = await startServer(t, { dbPath: join(tempDirectory(t), 'db'), args: ['--run-projections', 'All'] });
  const svcdb = (args: string[], options: CliOptions = {}): Promise<CliExit> => runCli(args, { ...options, env: { SVC_URL: server.url, ...options.env } });

  t.test('user add, list, passwd, disable', async (t) => {
    const added = await svcdb(['user', 'add', 'alice', '--full-name', 'Alice L', '-g', 'readers', '-g', 'writers'], { input: 'first-secret\n' });
    t.equal(added.code, ExitCode.success, added.stderr);
    t.equal(added.stdout.trim(), 'user alice created in readers, writers');
    const asAlice = (password: string) => svcdb(['stream', 'append', 'by-alice', '-t', 'X', '-d', '{}', '-U', 'alice'], { env: { SVC_PASSWORD: password } });
    t.equal((await asAlice('first-secret')).code, ExitCode.success, 'alice signs in with the password from standard input');

    const list = await svcdb(['user', 'list', '--json']);
    t.match(JSON.parse(list.stdout), [{ loginName: 'admin' }, { loginName: 'ops' }, { loginName: 'alice', fullName: 'Alice L', groups: ['readers', 'writers'], disabled: false }]);
    const table = await svcdb(['user', 'list']);
    t.match(table.stdout, /^LOGIN +FULL NAME +GROUPS +DISABLED\n/);
    t.match(table.stdout, /\nalice +Alice L +readers,writers +no\n/);

    const changed = await svcdb(['user', 'passwd', 'alice'], { input: 'second-secret\n' });
    t.equal(changed.code, ExitCode.success, changed.stderr);
    t.equal((await asAlice('first-secret')).code, ExitCode.unauthorized, 'the old password is refused');
    t.equal((await asAlice('second-secret')).code, ExitCode.success, 'the new one works');

    const disabled = await svcdb(['user', 'disable', 'alice']);
    t.equal(disabled.stdout.trim(), 'user alice disabled');
    t.equal((await asAlice('second-secret')).code, ExitCode.unauthorized, 'a disabled user is refused');
    t.equal((await svcdb(['user', 'passwd', 'nobody'], { input: 'x\n' })).code, ExitCode.notFound);
    t.equal((await svcdb(['user', 'add', 'bob'])).code, ExitCode.usage, 'no password given');
  });

  t.test('projection create, list, state, reset', async (t) => {
    await svcdb(['stream', 'append', 'counted', '-t', 'X'], { input: '{}\n{}\n{}\n' });
    const source = 'fromStream("counted").when({$init: function () { return {n: 0}; }, $any: function (s) { s.n++; return s; }})';
    const created = await svcdb(['projection', 'create', 'counter', '--query', source]);
    t.equal(created.code, ExitCode.success, created.stderr);
    await pollUntilAsync('the projection to count the three events', async () => (await svcdb(['projection', 'state', 'counter'])).stdout === '{"n":3}\n');
    const list = await svcdb(['projection', 'list', '--json']);
    t.match(JSON.parse(list.stdout).find((projection: { name: string }) => projection.name === 'counter'), { mode: 'Continuous', status: 'Running' });
    const reset = await svcdb(['projection', 'reset', 'counter']);
    t.equal(reset.code, ExitCode.success, reset.stderr);
    await pollUntilAsync('the reset projection to count again', async () => (await svcdb(['projection', 'state', 'counter'])).stdout === '{"n":3}\n');
    t.equal((await svcdb(['projection', 'state', 'nosuch'])).code, ExitCode.notFound);
  });

  t.test('subscription create, list, replay-parked', async (t) => {
    const created = await svcdb(['subscription', 'create', 'orders', 'billing', '--max-retry-count', '3']);
    t.equal(created.code, ExitCode.success, created.stderr);
    const list = await svcdb(['subscription', 'list', 'orders', '--json']);
    t.match(JSON.parse(list.stdout), [{ eventStreamId: 'orders', groupName: 'billing' }]);
    const replay = await svcdb(['subscription', 'replay-parked', 'orders', 'billing']);
    t.equal(replay.code, ExitCode.success, replay.stderr);
    t.equal((await svcdb(['subscription', 'replay-parked', 'orders', 'nosuch'])).code, ExitCode.notFound);
    t.equal((await svcdb(['subscription', 'create', 'orders', 'billing'])).code, ExitCode.failure, 'a group that exists');
  });
});

t.test('a node without projections: the command says how to start it', async (t) => {
  const server = await startServer(t, { dbPath: join(tempDirectory(t), 'db') });
  const exit = await runCli(['projection', 'list', '--url', server.url]);
  t.match(exit.stderr, /does not run projections.*--run-projections All.*SVCDB_ERR_CLIENT_PROJECTIONS_OFF/);
});
