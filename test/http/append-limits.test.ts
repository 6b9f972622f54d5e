// The 4 MiB limit of a write is on the event data and metadata it carries, as the wire protocol
// has it, not on the HTTP body: a batch whose envelope and escapes take it over 4 MiB is
// accepted while what it stores is within the limit; data and metadata over 4 MiB are refused
// with 413 and a code, and nothing is written. The body itself is limited too, above that.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { Errors } from '../../src/common/errors.js';
import { adminFetch } from '../helpers/auth.js';
import { postEvent, startNode } from '../helpers/node.js';

const MiB = 1024 * 1024;
const LIMIT = 4 * MiB;

// Chunks big enough for a 4 MiB append (the test default is 64 KiB).
const node = await startNode(t, { engine: { chunkSizeBytes: 16 * MiB } });

function batch(stream: string, events: Array<{ data: unknown; metadata?: unknown }>): Promise<Response> {
  const body = JSON.stringify(events.map((event) => ({ eventId: randomUUID(), eventType: 'Sized', ...event })));
  return adminFetch(`${node.url}/streams/${stream}`, { method: 'POST', body, headers: { 'content-type': 'application/vnd.svc.events+json' } });
}

function storedBytes(stream: string): number {
  return node.engine.readStreamForward(stream, 0, 10).events.reduce((sum, event) => sum + event.data.length + event.metadata.length, 0);
}

t.test('a JSON batch over 4 MiB whose data and metadata are within it is accepted', async (t) => {
  // Every quote is one byte stored and two in the body (\"): the body is about 1.5 times the data,
  // within the 8 MiB a body may take.
  const data = 'a"'.repeat((LIMIT - 2048) / 4);
  const body = JSON.stringify([{ eventId: randomUUID(), eventType: 'Sized', data, metadata: data }]);
  t.ok(Buffer.byteLength(body) > LIMIT, `the body (${Buffer.byteLength(body)} bytes) is over 4 MiB`);
  const response = await adminFetch(`${node.url}/streams/escaped`, { method: 'POST', body, headers: { 'content-type': 'application/vnd.svc.events+json' } });
  t.equal(response.status, 201, await response.clone().text());
  t.equal(storedBytes('escaped'), 2 * Buffer.byteLength(data), 'the data and metadata are stored');
});

t.test('an XML batch over 4 MiB whose data is within it is accepted', async (t) => {
  // &amp; is five bytes in the body and one stored.
  const text = `${'a'.repeat(LIMIT - 64 * 1024)}${'&amp;'.repeat(16 * 1024)}`;
  const body = `<events><event><eventId>${randomUUID()}</eventId><eventType>Sized</eventType><data>${text}</data></event></events>`;
  t.ok(body.length > LIMIT, `the body (${body.length} bytes) is over 4 MiB`);
  const response = await adminFetch(`${node.url}/streams/xml-escaped`, { method: 'POST', body, headers: { 'content-type': 'application/vnd.svc.events+xml' } });
  t.equal(response.status, 201, await response.clone().text());
  t.ok(storedBytes('xml-escaped') <= LIMIT, `what is stored (${storedBytes('xml-escaped')} bytes) is within 4 MiB`);
});

t.test('data and metadata of exactly 4 MiB are accepted; one byte more is 413 with a code', async (t) => {
  const exactly = await batch('exact', [{ data: 'x'.repeat(LIMIT / 2) }, { data: 'y'.repeat(LIMIT / 2 - 2), metadata: 'm'.repeat(2) }]);
  t.equal(exactly.status, 201, 'exactly 4 MiB');
  t.equal(storedBytes('exact'), LIMIT);

  const over = await batch('over', [{ data: 'x'.repeat(LIMIT / 2) }, { data: 'y'.repeat(LIMIT / 2 - 2), metadata: 'm'.repeat(3) }]);
  t.equal(over.status, 413, 'one byte over, across two events');
  t.equal(over.statusText, 'Too large events received');
  const body = await over.json() as { code: string; message: string };
  t.same(Object.keys(body).sort(), ['code', 'message']);
  t.equal(body.code, Errors.eventsTooLarge.code);
  t.equal(node.engine.readStreamForward('over', 0, 10).status, 'notFound', 'nothing was written');

  const raw = await postEvent(`${node.url}/streams/raw-over`, Buffer.alloc(LIMIT + 1, 0x61), {
    'content-type': 'application/octet-stream', 'svc-eventtype': 'T', 'svc-eventid': randomUUID(),
  });
  t.equal(raw.status, 413, 'a raw event of 4 MiB + 1 byte');
  t.equal(((await raw.json()) as { code: string }).code, Errors.eventsTooLarge.code);
  const rawExact = await postEvent(`${node.url}/streams/raw-exact`, Buffer.alloc(LIMIT, 0x61), {
    'content-type': 'application/octet-stream', 'svc-eventtype': 'T', 'svc-eventid': randomUUID(),
  });
  t.equal(rawExact.status, 201, 'a raw event of exactly 4 MiB');
});

t.test('metadata writes are held to the same limit', async (t) => {
  const metadata = JSON.stringify({ pad: 'p'.repeat(LIMIT) });
  const response = await adminFetch(`${node.url}/streams/meta-over/metadata`, {
    method: 'POST', body: metadata, headers: { 'content-type': 'application/json', 'svc-eventid': randomUUID() },
  });
  t.equal(response.status, 413);
  t.equal(((await response.json()) as { code: string }).code, Errors.eventsTooLarge.code);
});

t.test('a body over the HTTP limit is refused before it is parsed', async (t) => {
  const response = await postEvent(`${node.url}/streams/huge`, Buffer.alloc(8 * MiB + 1, 0x61), {
    'content-type': 'application/octet-stream', 'svc-eventtype': 'T', 'svc-eventid': randomUUID(),
  });
  t.equal(response.status, 413);
  t.equal(((await response.json()) as { code: string }).code, Errors.httpBodyTooLarge.code);
});
