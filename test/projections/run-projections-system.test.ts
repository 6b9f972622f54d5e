/**
 * A real `svcdb serve` restarted with `--run-projections System` keeps an enabled user projection
 * stopped: neither an enable nor a reset runs it (regression: a reset started it, and it emitted).
 * Uses the compiled code (npm run build).
 */
import t from 'tap';
import { join } from 'node:path';
import { ADMIN_AUTH } from '../helpers/auth.js';
import { startServer, type RunningServer } from '../helpers/cli.js';
import { readStream, waitStatus } from '../helpers/projections.js';

const EMITTER = 'fromStream("src-1").when({$any: function(s, e){ emit("esc-out", "E", {}); }})';

const call = (server: RunningServer, path: string, init: RequestInit = {}) =>
  fetch(`${server.url}${path}`, { ...init, headers: { authorization: ADMIN_AUTH, ...(init.headers as Record<string, string> | undefined) } });

t.test('under --run-projections System, a reset leaves an enabled user projection stopped', async (t) => {
  const dbPath = join(t.testdir(), 'db');
  let server = await startServer(t, { dbPath, args: ['--run-projections', 'All'] });
  const body = JSON.stringify([{ eventId: crypto.randomUUID(), eventType: 'T', data: {} }]);
  t.equal((await call(server, '/streams/src-1', { method: 'POST', body, headers: { 'content-type': 'application/vnd.svc.events+json' } })).status, 201);
  t.equal((await call(server, '/projections/continuous?name=user-emitter&type=JS&emit=yes', { method: 'POST', body: EMITTER })).status, 201);
  await waitStatus(server.url, 'user-emitter', 'Running');
  await server.process.stop('SIGTERM');

  server = await startServer(t, { dbPath, args: ['--run-projections', 'System'] });
  const emittedBefore = (await readStream(server.url, 'esc-out')).length;
  const status = async () => ((await (await call(server, '/projection/user-emitter')).json()) as { status: string }).status;
  t.equal(await status(), 'Stopped (Enabled)');
  const enable = await call(server, '/projection/user-emitter/command/enable', { method: 'POST' });
  t.equal(enable.status, 400);
  t.equal(((await enable.json()) as { code: string }).code, 'SVCDB_ERR_PROJECTIONS_USER_DISABLED');
  t.equal((await call(server, '/projection/user-emitter/command/reset', { method: 'POST' })).status, 200, 'a reset is accepted');
  t.equal(await status(), 'Stopped (Enabled)', 'the reset did not start it');
  t.equal((await readStream(server.url, 'esc-out')).length, emittedBefore, 'nothing more was emitted');
  t.equal(((await (await call(server, '/projection/user-emitter')).json()) as { epoch: number }).epoch, 1, 'the reset started a new epoch');
});
