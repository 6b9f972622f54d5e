import t, { type Test } from 'tap';
import { randomUUID } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { Errors } from '../../src/common/errors.js';
import { SINGLE_EVENT_TYPES } from '../../src/daemon/http/streams/event-codecs.js';
import { RedactionClient } from '../../src/maint/redact/socket-client.js';
import { adminFetch } from '../helpers/auth.js';
import { runCli, startServer, type RunningServer } from '../helpers/cli.js';
import { tempDirectory } from '../helpers/engine.js';
import { tempFilesOf } from '../helpers/redaction.js';

/**
 * `svcdb redact` against a real `svcdb serve --enable-unix-socket`, both as child processes:
 * redacted events read as redacted with empty data through every path, others are untouched; the
 * socket is 0600 and the HTTP port does not serve its operations; each refusal has its exit code
 * and changes nothing, a run as another user than the node's included.
 */

const STREAMS = ['orders-1', 'orders-2', 'invoices'];
const SERVE_ARGS = ['--enable-unix-socket', '--chunk-size', '65536'];
/** The user `nobody` of Debian's /etc/passwd. */
const NOBODY_UID = 65534;

async function fill(url: string): Promise<void> {
  for (let batch = 0; batch < 40; batch++) {
    for (const stream of STREAMS) {
      const events = Array.from({ length: 5 }, (_, i) => ({
        eventId: randomUUID(), eventType: `Type${i}`, data: { secret: `${stream}-${batch * 5 + i}`, pad: 'p'.repeat(200) }, metadata: { batch },
      }));
      const response = await adminFetch(`${url}/streams/${stream}`, {
        method: 'POST', headers: { 'content-type': 'application/vnd.svc.events+json' }, body: JSON.stringify(events),
      });
      if (response.status !== 201) throw new Error(`append: ${response.status} ${await response.text()}`);
    }
  }
}

async function read(url: string, path: string, accept: string): Promise<{ status: number; body: string }> {
  const response = await adminFetch(`${url}${path}`, { headers: { accept } });
  return { status: response.status, body: await response.text() };
}

/** The first page of `$all`, forward, with the events' bodies. */
async function readAllStream(url: string): Promise<string> {
  return (await read(url, `/streams/$all/${'0'.repeat(32)}/forward/1000?embed=body`, 'application/vnd.svc.atom+json')).body;
}

async function startFilled(t: Test, args = SERVE_ARGS): Promise<{ directory: string; dbPath: string; server: RunningServer }> {
  const directory = tempDirectory(t);
  const dbPath = join(directory, 'db');
  const server = await startServer(t, { dbPath, args });
  await fill(server.url);
  return { directory, dbPath, server };
}

t.test('redacted events read as redacted through every path; the rest is untouched', async (t) => {
  const { dbPath, server } = await startFilled(t);
  const socketPath = join(dbPath, 'svcdb.sock');
  t.equal(statSync(socketPath).mode & 0o777, 0o600, 'the socket is mode 0600');
  const overHttp = await adminFetch(`${server.url}/lock`, { method: 'POST' });
  t.equal(overHttp.status, 404, 'the HTTP port does not serve the lock operation');
  t.equal((await adminFetch(`${server.url}/positions`, { method: 'POST', body: '{}' })).status, 404, 'nor positions');

  const targets = ['3@orders-1', '150@orders-1', '10@orders-2', '120@invoices'];
  const beforeOther = await read(server.url, '/streams/orders-1/4', 'application/vnd.svc.event+json');
  const beforeEntry = JSON.parse((await read(server.url, '/streams/orders-1/3', 'application/vnd.svc.atom+json')).body) as Record<string, unknown>;
  const run = await runCli(['redact', '--db', dbPath, '--events', targets.join(',')]);
  t.equal(run.code, 0, 'svcdb redact succeeds', { stderr: run.stderr });
  for (const target of targets) t.match(run.stdout, new RegExp(`^${target}\\tchunk-\\d{6}\\.000000\\tredacted, now in chunk-\\d{6}\\.000001$`, 'm'), `it reports ${target}`);

  for (const target of targets) {
    const [number, stream] = target.split('@') as [string, string];
    const path = `/streams/${stream}/${number}`;
    const document = JSON.parse((await read(server.url, path, 'application/vnd.svc.event+json')).body) as Record<string, unknown>;
    t.equal(document.data, '', `${target}: event document data is empty`);
    t.same(Object.keys(document), ['eventStreamId', 'eventNumber', 'eventType', 'eventId', 'data', 'metadata'],
      `${target}: the event document has the reference's fixed fields, without isRedacted (as the README says)`);
    t.notMatch((await read(server.url, path, 'application/vnd.svc.event+xml')).body, /isRedacted/, `${target}: so has event+xml`);
    t.notMatch((await read(server.url, path, 'application/atom+xml')).body, /isRedacted/, `${target}: Atom XML has no rich fields`);
    const richEntry = JSON.parse((await read(server.url, `${path}?embed=rich`, 'application/vnd.svc.atom+json')).body) as Record<string, unknown>;
    t.equal(richEntry.isRedacted, true, `${target}: a single entry with rich fields says isRedacted`);
    t.same(document.metadata, { batch: Math.floor(Number(number) / 5) }, `${target}: metadata kept`);
    t.equal((await read(server.url, path, 'application/json')).body, '""', `${target}: application/json is an empty string`);
    t.equal((await read(server.url, path, 'application/octet-stream')).body, '', `${target}: octet-stream is empty`);
    t.notMatch((await read(server.url, path, 'application/atom+xml')).body, /secret/, `${target}: the Atom entry has no data`);
    for (const type of SINGLE_EVENT_TYPES) {
      const reply = await read(server.url, path, type);
      t.equal(reply.status, 200, `${target} reads as ${type}`);
      t.notMatch(reply.body, /secret|ppppp/, `${target}: ${type} shows none of the data`);
    }
    const rich = JSON.parse((await read(server.url, `${path}?embed=body`, 'application/vnd.svc.atom+json')).body) as Record<string, unknown>;
    t.equal(rich.isRedacted, true, `${target}: the entry says isRedacted`);
    t.equal(rich.data, '', `${target}: and carries empty data`);
  }
  const entry = JSON.parse((await read(server.url, '/streams/orders-1/3', 'application/vnd.svc.atom+json')).body) as Record<string, unknown>;
  t.same({ ...entry, content: null }, { ...beforeEntry, content: null }, 'type, timestamp and links of the entry are unchanged');
  const feed = (await read(server.url, '/streams/orders-1/0/forward/20?embed=body', 'application/vnd.svc.atom+json')).body;
  t.equal((JSON.parse(feed) as { entries: Array<{ isRedacted: boolean }> }).entries.filter((e) => e.isRedacted).length, 1, 'the feed page shows one redacted event');
  const all = await readAllStream(server.url);
  t.equal((JSON.parse(all) as { entries: Array<{ isRedacted: boolean }> }).entries.filter((e) => e.isRedacted).length, targets.length, '$all shows every redaction');
  t.notMatch(all, /orders-1-3"|orders-1-150"|orders-2-10"|invoices-120"/, '$all has none of the redacted data');
  t.same(await read(server.url, '/streams/orders-1/4', 'application/vnd.svc.event+json'), beforeOther, 'another event reads as before');

  const again = await runCli(['redact', '--db', dbPath, '--events', targets.join(','), '--json']);
  t.equal(again.code, 0, 'running it twice is harmless');
  t.same((JSON.parse(again.stdout) as { chunksSwitched: string[] }).chunksSwitched, [], 'and switches nothing');
  t.same(tempFilesOf(join(dbPath, '..')), [], 'no .tmp file is left');

  await server.process.stop('SIGTERM');
  t.notOk(existsSync(socketPath), 'a clean stop removes the socket');
});

t.test('each refusal has its own exit code and changes nothing', async (t) => {
  const { dbPath, server } = await startFilled(t);
  const redact = (...args: string[]) => runCli(['redact', '--db', dbPath, ...args]);

  const missing = await redact('--events', '3@orders-1,999@orders-1');
  t.equal(missing.code, ExitCode.eventNotFound, 'an event that does not exist');
  t.match(missing.stderr, /999@orders-1/);
  await adminFetch(`${server.url}/streams/doomed`, { method: 'POST', headers: { 'content-type': 'application/json', 'svc-eventtype': 'x', 'svc-eventid': randomUUID() }, body: '{}' });
  await adminFetch(`${server.url}/streams/doomed`, { method: 'DELETE', headers: { 'svc-harddelete': 'true' } });
  const written = await adminFetch(`${server.url}/streams/orders-1/metadata`, {
    method: 'POST', headers: { 'content-type': 'application/vnd.svc.events+json' },
    body: JSON.stringify([{ eventId: randomUUID(), eventType: '$metadata', data: { $maxCount: 5000, owner: 'sales' } }]),
  });
  t.equal(written.status, 201, 'orders-1 has metadata');
  const before = await readAllStream(server.url);
  const metadata = await redact('--events', '3@orders-1,0@$$orders-1', '--json');
  t.equal(metadata.code, ExitCode.metadataEvent, 'a metadata event');
  t.match(JSON.parse(metadata.stdout), { error: { code: 'SVCDB_ERR_REDACT_METADATA_EVENT', details: { event: '0@$$orders-1', stream: 'orders-1' } } });
  t.match(JSON.parse(metadata.stdout), { error: { message: /metadata cannot be redacted.*write new metadata without it/ } }, 'the message says why and what to do instead');
  t.match(JSON.parse((await read(server.url, '/streams/orders-1/metadata', 'application/json')).body), { owner: 'sales' }, 'the metadata reads as before');
  const tombstone = await redact('--events', `${Number.MAX_SAFE_INTEGER}@doomed,1@doomed`);
  t.equal(tombstone.code, ExitCode.eventNotFound, 'a tombstone');
  t.match(tombstone.stderr, /tombstone/, 'the message says it is a tombstone');
  t.equal((await redact('--events', '0@orders-2,199@invoices')).code, ExitCode.chunkNotCompleted, 'an event in the active chunk');
  t.equal((await redact('--events', 'orders-1')).code, ExitCode.usage, 'a malformed list');
  t.equal((await redact('--events', '1@')).code, ExitCode.usage, 'an item without a stream');
  const notNode = join(dbPath, '..', 'elsewhere');
  mkdirSync(notNode);
  t.equal((await runCli(['redact', '--db', notNode, '--events', '1@a'])).code, ExitCode.refused, 'a directory that is not a node\'s');

  const holder = new RedactionClient(join(dbPath, 'svcdb.sock'));
  t.teardown(() => holder.close());
  const lockId = await holder.lock();
  const busy = await redact('--events', '3@orders-1', '--json');
  t.equal(busy.code, ExitCode.busy, 'the chunk-switch lock held by another operation');
  t.match(JSON.parse(busy.stdout), { error: { code: 'SVCDB_ERR_CHUNK_SWITCH_LOCKED', details: { holderKind: 'redaction' } } });
  await holder.release(lockId);

  const eventsFile = join(dbPath, '..', 'events.txt');
  writeFileSync(eventsFile, '# to check\n3@orders-1\n');
  const dry = await redact('--events-file', eventsFile, '--dry-run');
  t.equal(dry.code, 0, 'a dry run from a file succeeds');
  t.match(dry.stdout, /3@orders-1\tchunk-000000\.000000\twould be redacted/);

  const after = await readAllStream(server.url);
  t.equal(after, before, '$all reads as before every refused run');
  t.same(tempFilesOf(join(dbPath, '..')), [], 'no .tmp file is left');

  await server.process.stop('SIGTERM');
  const off = await startServer(t, { dbPath, args: [] });
  t.notOk(existsSync(join(dbPath, 'svcdb.sock')), 'without --enable-unix-socket there is no socket');
  const noSocket = await redact('--events', '3@orders-1');
  t.equal(noSocket.code, ExitCode.unreachable, 'no socket');
  t.match(noSocket.stderr, /--enable-unix-socket/, 'the message says how to fix it');
  await off.process.stop('SIGTERM');
});

t.test('run as another user than the node, root included, the command is refused and changes nothing', async (t) => {
  t.equal(process.getuid?.(), 0, 'this test runs as root, who can connect to a socket it does not own');
  const { dbPath, server } = await startFilled(t);
  const socketPath = join(dbPath, 'svcdb.sock');
  const before = await readAllStream(server.url);
  // The node's socket as a node running as nobody would have made it.
  chownSync(socketPath, NOBODY_UID, NOBODY_UID);
  for (const dryRun of [[], ['--dry-run']]) {
    const run = await runCli(['redact', '--db', dbPath, '--events', '3@orders-1', ...dryRun]);
    t.equal(run.code, ExitCode.refused, `refused with exit 8 ${dryRun.join('')}`, { stderr: run.stderr });
    t.match(run.stderr, Errors.redactWrongUser.code, 'with its code');
    t.match(run.stderr, /runs as root, but the node runs as nobody .*sudo -u nobody svcdb redact/s, 'the message names both users and the fix');
  }
  const after = await readAllStream(server.url);
  t.equal(after, before, '$all reads as before');
  t.same(tempFilesOf(join(dbPath, '..')), [], 'no .tmp file is left');

  chownSync(socketPath, 0, 0);
  const asNodeUser = await runCli(['redact', '--db', dbPath, '--events', '3@orders-1']);
  t.equal(asNodeUser.code, 0, 'run as the node\'s user, it redacts', { stderr: asNodeUser.stderr });
});
