// `svcdb scavenge` as cron and operators run it: a real child process against a real
// `svcdb serve` child. Start, start --wait, status and stop; each exit code; --json; and quiet
// output off a terminal.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { openNodeScavenger } from '../../src/daemon/scavenge/open-scavenger.js';
import { CliProcess, runCli, startServer } from '../helpers/cli.js';
import { tempDirectory } from '../helpers/engine.js';
import { pollUntilAsync } from '../helpers/wait.js';
import { appendJson, call, completion, fillRemovable, startScavengeNode } from '../helpers/scavenge-node.js';

const SERVE_ARGS = ['--chunk-size', '65536'];

async function json(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; body: any; stderr: string }> {
  const exit = await runCli([...args, '--json'], { env });
  let body: any;
  try {
    body = JSON.parse(exit.stdout);
  } catch {
    throw new Error(`svcdb ${args.join(' ')} printed no JSON (exit ${exit.code}):\n${exit.stdout}\n${exit.stderr}`);
  }
  return { code: exit.code, body, stderr: exit.stderr };
}

t.test('start, start --wait, status and stop against a running node', async (t) => {
  const directory = tempDirectory(t);
  const server = await startServer(t, { dbPath: join(directory, 'db'), args: SERVE_ARGS });
  await fillRemovable(server.url, 1500, 100);
  const url = ['--url', server.url];

  const quiet = await runCli(['scavenge', 'start', ...url]);
  t.equal(quiet.code, ExitCode.success, `started: ${quiet.stderr}`);
  t.equal(quiet.stdout + quiet.stderr, '', 'from cron (no terminal) nothing is printed');
  const current = await call(server.url, 'GET', '/admin/scavenge/current');
  if (current.body.scavengeId !== '') await completion(server.url, current.body.scavengeId);

  const waited = await runCli(['scavenge', 'start', '--wait', ...url]);
  t.equal(waited.code, ExitCode.success, `waited: ${waited.stderr}`);
  t.equal(waited.stdout + waited.stderr, '', '--wait prints nothing on success off a terminal');

  const reported = await json(['scavenge', 'start', '--wait', '--threshold', '-1', ...url]);
  t.equal(reported.code, ExitCode.success);
  t.match(reported.body, { url: server.url, scavengeId: String, completed: { result: 'Success', error: null, spaceSaved: Number, timeTaken: String } });

  const idle = await json(['scavenge', 'status', ...url]);
  t.same(idle.body, { url: server.url, running: false }, 'status --json with none running');
  const idleText = await runCli(['scavenge', 'status', ...url]);
  t.equal(idleText.stdout.trim(), 'no scavenge is running');

  const nothing = await json(['scavenge', 'stop', ...url]);
  t.equal(nothing.code, ExitCode.notFound, 'stop with none running: not found, not an unexpected failure');
  t.equal(nothing.body.error.code, 'SVCDB_ERR_SCAVENGE_NOT_FOUND');

  // A throttled run rests about 99% of the time, 99 ms for each of work: with a few chunks to
  // rewrite, long enough to meet it running (each svcdb below takes a second or so).
  for (let done = 0; done < 1000; done += 50) await appendJson(server.url, 'kept', 50);
  const follower = new CliProcess(['scavenge', 'start', '--wait', '--throttle-percent', '1', '--threshold', '-1', '--json', ...url]);
  t.teardown(() => follower.stop('SIGKILL'));
  let running: any;
  // Until the usual deadline: on a loaded machine the child takes seconds to start.
  await pollUntilAsync('the throttled scavenge to run', async () => {
    const reply = await call(server.url, 'GET', '/admin/scavenge/current');
    if (reply.body.scavengeId !== '') running = reply.body;
    return running !== undefined;
  }, { intervalMs: 25 });
  t.ok(running, 'the throttled scavenge is running');

  const second = await json(['scavenge', 'start', ...url]);
  t.equal(second.code, ExitCode.scavengeRunning, 'a second start: already running');
  t.equal(second.body.error.code, 'SVCDB_ERR_SCAVENGE_ALREADY_RUNNING');
  t.match(second.body.error.message, running.scavengeId, 'naming the running scavenge');

  const status = await json(['scavenge', 'status', ...url]);
  t.match(status.body, { running: true, scavenge: { scavengeId: running.scavengeId, phase: String, chunksDone: Number, spaceSaved: Number } });
  const statusText = await runCli(['scavenge', 'status', ...url]);
  t.match(statusText.stdout, new RegExp(`^scavenge ${running.scavengeId}: Scavenging: \\w+, (chunks|streams|merges|index files) \\d+`), 'one line: phase, chunks, bytes');

  const stop = await json(['scavenge', 'stop', ...url]);
  t.equal(stop.code, ExitCode.success, 'stopped');
  t.same(stop.body, { url: server.url, scavengeId: running.scavengeId, stopped: true });
  const followed = await follower.exited;
  t.equal(followed.code, ExitCode.scavengeStopped, 'the waiting start exits: stopped by someone else');
  t.equal(JSON.parse(followed.stdout).error.code, 'SVCDB_ERR_SCAVENGE_STOPPED');

  const resumed = await json(['scavenge', 'start', '--wait', ...url]);
  t.equal(resumed.code, ExitCode.success, 'the next start resumes and completes');
});

t.test('credentials from SVC_USERNAME and SVC_PASSWORD or a password file; refused credentials and an unreachable node', async (t) => {
  const directory = tempDirectory(t);
  const server = await startServer(t, { dbPath: join(directory, 'db'), args: SERVE_ARGS });
  const url = ['--url', server.url];
  const fromEnvironment = await json(['scavenge', 'status', ...url], { SVC_USERNAME: 'ops', SVC_PASSWORD: 'changeit' });
  t.equal(fromEnvironment.code, ExitCode.success, 'SVC_USERNAME and SVC_PASSWORD');
  const passwordFile = join(directory, 'ops-password');
  writeFileSync(passwordFile, 'changeit\n', { mode: 0o600 });
  const fromFile = await json(['scavenge', 'status', '--username', 'ops', '--password-file', passwordFile, ...url]);
  t.equal(fromFile.code, ExitCode.success, '--password-file');
  const refused = await json(['scavenge', 'start', ...url], { SVC_PASSWORD: 'wrong' });
  t.equal(refused.code, ExitCode.unauthorized, 'refused credentials');
  t.equal(refused.body.error.code, 'SVCDB_ERR_CLIENT_UNAUTHORIZED');
  await server.process.stop('SIGTERM');
  const unreachable = await json(['scavenge', 'start', '--wait', ...url]);
  t.equal(unreachable.code, ExitCode.unreachable, 'no node at --url');
  t.equal(unreachable.body.error.code, 'SVCDB_ERR_CLIENT_UNREACHABLE');
  const badFlag = await runCli(['scavenge', 'start', '--threads', '5', ...url]);
  t.equal(badFlag.code, ExitCode.usage, '--threads above 4 is a usage error');
});

t.test('a node that takes the connection but never answers: a timeout whose message and hint are about the request made', async (t) => {
  const silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    silent.closeAllConnections();
    silent.close();
  });
  const { port } = silent.address() as AddressInfo;
  const timedOut = await json(['scavenge', 'status', '--url', `http://127.0.0.1:${port}`, '--timeout-seconds', '1']);
  t.equal(timedOut.code, ExitCode.unreachable, 'the exit code of a node without an answer');
  t.equal(timedOut.body.error.code, 'SVCDB_ERR_CLIENT_TIMEOUT');
  t.match(timedOut.body.error.message, /did not answer; check its log/, 'the message says the node did not answer');
  t.match(timedOut.body.error.hint, /--timeout-seconds/, 'the hint names the flag to raise');
  t.notMatch(timedOut.body.error.hint, /reload/, 'and speaks of no certificate reload');
});

t.test('a scavenge that fails: start --wait exits with the failed code', async (t) => {
  // The node runs in this process so that a fault can be injected into its scavenger: the run
  // stops after its first stage and then fails as a disk error would.
  const node = await startScavengeNode(t, {
    openScavenger: (storage, settings) => {
      const real = openNodeScavenger(storage, settings);
      return {
        checkpoint: () => real.checkpoint(), close: () => real.close(),
        run: async (options) => {
          const controller = new AbortController();
          await real.run({ ...options, signal: controller.signal, observer: { ...options.observer, stageStarted: () => controller.abort() } });
          throw new Error('EIO: i/o error, write');
        },
      };
    },
  });
  await fillRemovable(node.url, 200, 50);
  const failed = await json(['scavenge', 'start', '--wait', '--url', node.url]);
  t.equal(failed.code, ExitCode.scavengeFailed, 'exit code: failed');
  t.equal(failed.body.error.code, 'SVCDB_ERR_SCAVENGE_FAILED');
  t.match(failed.body.error.message, /EIO/, 'with the node\'s reason');
});
