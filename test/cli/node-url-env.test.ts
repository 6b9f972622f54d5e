// SVC_URL names the node for every command that talks to one, and an exported SVC_URL does not
// make cert-reload --signal (which sends no request) refuse its command line; a typed --url does.
import t from 'tap';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { runCli } from '../helpers/cli.js';

t.test('an exported SVC_URL leaves cert-reload --signal alone', async (t) => {
  const db = t.testdir({});
  const exported = await runCli(['cert-reload', '--signal', '--db', db], { env: { SVC_URL: 'http://127.0.0.1:1' } });
  t.equal(exported.code, ExitCode.unreachable, `no node runs on --db, and nothing else is wrong: ${exported.stderr}`);
  t.match(exported.stderr, /SVCDB_ERR_CLIENT_NODE_NOT_RUNNING/);
  const typed = await runCli(['cert-reload', '--signal', '--db', db, '--url=http://127.0.0.1:1']);
  t.equal(typed.code, ExitCode.usage);
  t.match(typed.stderr, /--url cannot also be provided when using --signal/);
});

t.test('SVC_URL is the --url of every command that talks to a node', async (t) => {
  const exit = await runCli(['scavenge', 'status'], { env: { SVC_URL: 'http://127.0.0.1:1' } });
  t.equal(exit.code, ExitCode.unreachable);
  t.match(exit.stderr, /cannot reach the node at http:\/\/127\.0\.0\.1:1/);
});
