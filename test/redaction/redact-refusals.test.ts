import t from 'tap';
import { randomUUID } from 'node:crypto';
import { copyFileSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { RedactionClient } from '../../src/maint/redact/socket-client.js';
import { adminFetch } from '../helpers/auth.js';
import { runCli, startServer } from '../helpers/cli.js';
import { tempDirectory } from '../helpers/engine.js';

/**
 * Refusals of `svcdb redact` and its socket against a real `svcdb serve --enable-unix-socket`:
 * events the node reads to decide who may do what (default ACLs, users, projection definitions)
 * are refused as metadata is, since blanking them would change rights rather than hide data; and
 * a `.tmp` copy that is a symbolic link is never checked or switched in (it would put a file from
 * outside the database directory in place of a chunk).
 */

const directory = tempDirectory(t);
const dbPath = join(directory, 'db');
const server = await startServer(t, { dbPath, args: ['--enable-unix-socket', '--chunk-size', '65536'] });

async function post(path: string, body: unknown, contentType = 'application/vnd.svc.events+json'): Promise<void> {
  const response = await adminFetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body: JSON.stringify(body) });
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
}

const event = (eventType: string, data: unknown) => ({ eventId: randomUUID(), eventType, data });
await post('/users', { loginName: 'bob', fullName: 'Bob', groups: [], password: 'secret-1' }, 'application/json');
// A password reset writes a notification to $users-password-notifications.
const reset = await adminFetch(`${server.url}/users/bob/command/reset-password`, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ newPassword: 'secret-1' }),
});
if (reset.status !== 200) throw new Error(`reset-password: ${reset.status}`);
await post('/streams/%24settings', [event('$settings', { $userStreamAcl: { $r: '$all' } })]);
await post('/streams/%24projections-sales', [event('$ProjectionUpdated', { query: 'fromAll()', runAs: { name: 'admin' } }), event('Other', { n: 1 })]);
// Enough events to complete the first chunks, so that the refusals are not about the active chunk.
for (let batch = 0; batch < 60; batch++) {
  await post('/streams/orders', Array.from({ length: 5 }, (_, i) => event('Order', { n: batch * 5 + i, pad: 'p'.repeat(300) })));
}

t.test('events the node reads for rights are refused with exit 17, changing nothing', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['0@$settings', /default access control lists/],
    ['0@$user-bob', /a user account/],
    ['0@$users', /a user account/],
    ['0@$users-password-notifications', /a user account/],
    ['0@$projections-sales', /projection definition/],
  ];
  for (const [target, why] of cases) {
    const run = await runCli(['redact', '--db', dbPath, '--events', `3@orders,${target}`, '--json']);
    t.equal(run.code, ExitCode.metadataEvent, `${target}: exit 17`);
    const { error } = JSON.parse(run.stdout) as { error: { code: string; message: string; details: { event: string } } };
    t.equal(error.code, 'SVCDB_ERR_REDACT_INTERPRETED_EVENT', target);
    t.equal(error.details.event, target);
    t.match(error.message, why);
  }
  const bob = await fetch(`${server.url}/users/$current`, { headers: { authorization: `Basic ${Buffer.from('bob:secret-1').toString('base64')}` } });
  t.equal(bob.status, 200, 'bob still signs in');
  const other = await runCli(['redact', '--db', dbPath, '--events', '1@$projections-sales', '--dry-run']);
  t.equal(other.code, 0, 'another event of a projection stream may be redacted');
});

t.test('a .tmp copy that is a symbolic link is refused by the check and by the switch', async (t) => {
  const target = readdirSync(dbPath).filter((name) => name.startsWith('chunk-')).sort()[0];
  const outside = join(directory, 'outside-copy');
  copyFileSync(join(dbPath, target), outside);
  symlinkSync(outside, join(dbPath, 'linked.redact.tmp'));
  const client = new RedactionClient(join(dbPath, 'svcdb.sock'));
  t.teardown(() => client.close());
  const lockId = await client.lock();
  const checks: Array<[string, () => Promise<unknown>]> = [
    ['check', () => client.checkChunks(lockId, [{ targetChunkFile: target, newChunkFile: 'linked.redact.tmp' }])],
    ['switch', () => client.switchChunk(lockId, target, 'linked.redact.tmp')],
  ];
  for (const [what, call] of checks) {
    await t.rejects(call() as Promise<void>, { code: 'SVCDB_ERR_STORAGE_REPLACEMENT_INVALID', message: /symbolic link/ }, `${what} refuses the link`);
  }
  await client.release(lockId);
  t.same(readdirSync(dbPath).filter((name) => name.startsWith(target.slice(0, 12))), [target], 'the chunk was not replaced');
});
