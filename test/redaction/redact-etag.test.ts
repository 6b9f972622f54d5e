import t, { type Test } from 'tap';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { adminFetch } from '../helpers/auth.js';
import { runCli, startServer, type RunningServer } from '../helpers/cli.js';
import { tempDirectory } from '../helpers/engine.js';

/**
 * A redaction changes events without a write, so it must change every ETag a client may hold:
 * after it, `If-None-Match` with an ETag from before gets the redacted content (200), never a 304
 * standing for the original, for the head page of a stream, the head page of `$all` and a
 * stream's `head` event; the new ETag validates (304), after a restart too. The page cache and
 * long polls serve the redacted content at once.
 */

const SERVE_ARGS = ['--enable-unix-socket', '--chunk-size', '65536'];
const ATOM = 'application/vnd.svc.atom+json';
const EVENT = 'application/vnd.svc.event+json';
/** Read before and after: the head page of `early`, the head page of $all, the head event of `early`. */
const PATHS = ['/streams/early', '/streams/$all', '/streams/early/head'];

async function append(url: string, stream: string, events: Array<{ data: unknown }>): Promise<void> {
  const response = await adminFetch(`${url}/streams/${stream}`, {
    method: 'POST', headers: { 'content-type': 'application/vnd.svc.events+json' },
    body: JSON.stringify(events.map(({ data }) => ({ eventId: randomUUID(), eventType: 'Noted', data, metadata: { by: 'test' } }))),
  });
  if (response.status !== 201) throw new Error(`append to ${stream}: ${response.status} ${await response.text()}`);
}

/** `early` (5 events) first, then enough other events that its chunk is completed. */
async function fill(url: string): Promise<void> {
  await append(url, 'early', Array.from({ length: 5 }, (_, i) => ({ data: { secret: `early-${i}` } })));
  for (let batch = 0; batch < 60; batch++) {
    await append(url, 'filler', Array.from({ length: 5 }, (_, i) => ({ data: { n: batch * 5 + i, pad: 'p'.repeat(200) } })));
  }
}

async function get(url: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; etag: string | null; body: string }> {
  const accept = path.endsWith('/head') ? EVENT : ATOM;
  const response = await adminFetch(`${url}${path}`, { headers: { accept, ...headers } });
  return { status: response.status, etag: response.headers.get('etag'), body: await response.text() };
}

async function etags(t: Test, server: RunningServer, label: string): Promise<string[]> {
  const tags: string[] = [];
  for (const path of PATHS) {
    const read = await get(server.url, path);
    t.equal(read.status, 200, `${label}: ${path} reads`);
    t.ok(read.etag, `${label}: ${path} has an ETag`);
    tags.push(read.etag!);
  }
  return tags;
}

t.test('an ETag from before a redaction does not validate the redacted content', async (t) => {
  const directory = tempDirectory(t);
  const dbPath = join(directory, 'db');
  let server = await startServer(t, { dbPath, args: SERVE_ARGS });
  await fill(server.url);

  const before = await etags(t, server, 'before');
  for (const [i, path] of PATHS.entries()) {
    t.equal((await get(server.url, path, { 'if-none-match': before[i] })).status, 304, `before: ${path} with its ETag is 304`);
  }
  t.match(JSON.parse((await get(server.url, '/streams/early')).body), { eTag: before[0].slice(1, -1) }, 'the cached head page shows its ETag');

  const run = await runCli(['redact', '--db', dbPath, '--events', '4@early,2@early']);
  t.equal(run.code, 0, 'svcdb redact succeeds', { stderr: run.stderr });

  const after = await etags(t, server, 'after');
  for (const [i, path] of PATHS.entries()) {
    t.not(after[i], before[i], `${path}: the ETag changed`);
    const stale = await get(server.url, path, { 'if-none-match': before[i] });
    t.equal(stale.status, 200, `${path} with the ETag from before the redaction is not 304`);
    t.equal(stale.etag, after[i], `${path}: and carries the new ETag`);
    t.equal((await get(server.url, path, { 'if-none-match': after[i] })).status, 304, `${path} with the new ETag is 304`);
  }
  t.match(JSON.parse((await get(server.url, '/streams/early')).body), { eTag: after[0].slice(1, -1) }, 'the page cache does not serve the page rendered before');
  const head = JSON.parse((await get(server.url, '/streams/early/head', { 'if-none-match': before[2] })).body) as { data: unknown; metadata: unknown };
  t.same({ data: head.data, metadata: head.metadata }, { data: '', metadata: { by: 'test' } }, 'the head event reads redacted, metadata kept');
  const rich = await adminFetch(`${server.url}/streams/early/0/forward/20?embed=body`, { headers: { accept: ATOM, 'svc-longpoll': '2' } });
  const entries = (JSON.parse(await rich.text()) as { entries: Array<{ isRedacted: boolean; data: unknown; eventNumber: number }> }).entries;
  t.same(entries.filter((entry) => entry.isRedacted).map((entry) => entry.eventNumber).sort(), [2, 4], 'a long poll shows the redacted events');
  t.ok(entries.filter((entry) => entry.isRedacted).every((entry) => entry.data === ''), 'with empty data');
  t.notMatch(JSON.stringify(entries), /early-2|early-4/, 'and none of their data');

  await server.process.stop('SIGTERM');
  server = await startServer(t, { dbPath, args: SERVE_ARGS });
  const restarted = await etags(t, server, 'after a restart');
  // A start writes to the log (its epoch record), which moves the end that $all's ETag carries.
  t.same([restarted[0], restarted[2]], [after[0], after[2]], 'after a restart the stream ETags are those after the redaction');
  for (const [i, path] of PATHS.entries()) {
    t.equal((await get(server.url, path, { 'if-none-match': before[i] })).status, 200, `after a restart, ${path} with the ETag from before is not 304`);
  }
  await server.process.stop('SIGTERM');
});
