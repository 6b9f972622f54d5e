// A JSON batch's data and metadata are slices of the request's bytes, and reading a batch from its
// bytes gives what parsing it gives: the same events, or the same refusal, for random batches
// (escapes, unicode, nesting, whitespace, numbers, string and null data, repeated and unknown
// keys, cut short or damaged); and through a real node, the bytes sent are the bytes stored.
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { batchEvents, parsedBatchEvents } from '../../src/daemon/http/streams/append-body.js';
import { MediaType } from '../../src/daemon/http/streams/media-types.js';
import type { NewEvent } from '../../src/storage/streams/write-types.js';
import { adminFetch } from '../helpers/auth.js';
import { laidOut } from '../helpers/json-layout.js';
import { startNode } from '../helpers/node.js';
import { testSeed } from '../helpers/random.js';

const ID = '3f1a2b4c-1d2e-4f5a-8b9c-0d1e2f3a4b5c';

/** The events of `text`, or the code it is refused with. */
function outcome(read: (body: Buffer, mediaType: string) => NewEvent[], text: string): unknown {
  try {
    return read(Buffer.from(text), MediaType.eventsJson).map((event) => ({ ...event, data: event.data.toString('hex'), metadata: event.metadata.toString('hex') }));
  } catch (error) {
    return (error as { code?: string }).code ?? error;
  }
}

/** Values a client might send as data or metadata, as JSON text. */
const value = fc.oneof(
  fc.tuple(fc.jsonValue({ maxDepth: 4 }), fc.array(fc.constantFrom('', ' ', '\n  ', '\t', '\r\n'), { minLength: 1, maxLength: 4 })).map(([json, spaces]) => laidOut(json, spaces)),
  fc.constantFrom('null', '"text"', '"{\\"a\\": 1}"', '"{a : \'x\'}"', '"[1, 2"', '" [1]"', '"é\\u00e9\\n😀"', '123123123123123123', '1.0', '-0', '1e5', 'true', '{}', '[]'),
  fc.string().map((text) => JSON.stringify(text)),
);
/** Mostly what an event needs, sometimes what makes it refused. */
const eventId = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(`"${ID}"`, `"${ID.toUpperCase()}"`, `"\\u0033${ID.slice(1)}"`) },
  { weight: 1, arbitrary: fc.constantFrom(`"${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}"`, '""', '"not-a-uuid"', '12', 'null', `["${ID}"]`) },
);
const eventType = fc.oneof(
  { weight: 8, arbitrary: fc.oneof(fc.constantFrom('"T"', '"Typ\\u00e9"', '"Ordér"'), fc.string({ minLength: 1 }).map((text) => JSON.stringify(text))) },
  { weight: 1, arbitrary: fc.constantFrom('""', '1', 'null', '{"a":1}') },
);
const key = fc.constantFrom('"eventId"', '"eventType"', '"data"', '"metadata"', '"d\\u0061ta"', '"other"', '"__proto__"', '""');
/** One entry: usually the fields an event needs, with optional, repeated and unknown members, shuffled. */
const entry = fc.tuple(
  fc.option(eventId, { freq: 12, nil: undefined }), fc.option(eventType, { freq: 12, nil: undefined }),
  fc.option(value, { freq: 2, nil: undefined }), fc.option(value, { freq: 2, nil: undefined }),
  fc.array(fc.tuple(key, value), { maxLength: 2 }), fc.constantFrom('', ' ', '\n'),
).chain(([id, type, data, metadata, extra, space]) => {
  const members = [['"eventId"', id], ['"eventType"', type], ['"data"', data], ['"metadata"', metadata], ...extra].filter(([, text]) => text !== undefined);
  return fc.shuffledSubarray(members, { minLength: members.length }).map((shuffled) => `{${space}${shuffled.map(([name, text]) => `${name}${space}:${space}${text}`).join(`,${space}`)}${space}}`);
});
const batch = fc.tuple(fc.array(entry, { minLength: 1, maxLength: 3 }), fc.constantFrom('', ' ', '\n')).map(([entries, space]) => `${space}[${space}${entries.join(`${space},${space}`)}${space}]${space}`);
/** A batch cut short or with one character changed: the refusals must match too. */
const damaged = fc.tuple(batch, fc.nat(), fc.constantFrom('', ',', '"', '}', ']', ' ', '\\', 'x', '\u0001', '\u00e9')).map(([text, at, inserted]) => {
  const cut = at % (text.length + 1);
  return `${text.slice(0, cut)}${inserted}${text.slice(cut + 1)}`;
});

t.test('random batches, whole and damaged: read from the bytes as parsing reads them', async (t) => {
  let scanned = 0;
  fc.assert(fc.property(fc.oneof({ weight: 2, arbitrary: batch }, { weight: 1, arbitrary: damaged }), (text) => {
    const expected = outcome(parsedBatchEvents, text);
    t.same(outcome(batchEvents, text), expected, text);
    if (Array.isArray(expected)) scanned++;
  }), { numRuns: 3000, seed: testSeed(t) });
  t.ok(scanned > 300, `${scanned} batches were accepted, not only refused`);
});

t.test('a batch cut short anywhere is refused as parsing refuses it; a batch of nearly 8 MiB reads as parsing reads it', async (t) => {
  const text = `[{"eventId":"${ID}", "eventType":"T\\u00e9","data":{"a":[1.5e3,"\\"é"],"b":null},"metadata":"m"}]`;
  for (let length = 0; length < text.length; length++) t.same(outcome(batchEvents, text.slice(0, length)), outcome(parsedBatchEvents, text.slice(0, length)), `${length} bytes`);
  const huge = `[${Array.from({ length: 21_000 }, () => `{"eventId":"${randomUUID()}","eventType":"T","data":{"pad":"${'x'.repeat(300)}","n":[1,2,3]}}`).join(',\n')}]`;
  t.ok(huge.length > 8_000_000 && huge.length < 8 * 1024 * 1024, `${huge.length} bytes, just under the 8 MiB a body may take`);
  t.same(outcome(batchEvents, huge), outcome(parsedBatchEvents, huge), 'the same 21000 events');
});

t.test('bodies only the parsers read are read as before: lenient JSON, a byte-order mark, bytes that are not UTF-8', async (t) => {
  const strict = `[{"eventId":"${ID}","eventType":"T","data":{"a":1}}]`;
  for (const body of [
    Buffer.from(`[{eventId:"${ID}",eventType:'T',data:{a:1},}]`),
    Buffer.from(`\ufeff${strict}`),
    Buffer.concat([Buffer.from(`[{"eventId":"${ID}","eventType":"T","data":{"a":"`), Buffer.from([0xff, 0xc3]), Buffer.from('"}}]')]),
  ]) {
    const [event] = batchEvents(body, MediaType.eventsJson);
    t.same(event, parsedBatchEvents(body, MediaType.eventsJson)[0], body.toString('utf8'));
  }
  t.equal(batchEvents(Buffer.from(`[{eventId:"${ID}",eventType:'T',data:{ a : 1 }}]`), MediaType.eventsJson)[0].data.toString(), '{"a":1}',
    'a lenient batch has its data serialized again, as before');
});

t.test('the data and metadata of a strict batch share the body\'s memory: they are slices of it, not copies', async (t) => {
  const body = Buffer.from(`[{"eventId":"${ID}","eventType":"T","data":{ "a" : [1, "\\u00e9"] },"metadata":[ ]}]`);
  const [event] = batchEvents(body, MediaType.eventsJson);
  t.equal(event.data.buffer, body.buffer, 'data is a view of the body');
  t.equal(event.metadata.buffer, body.buffer, 'metadata too');
  t.equal(event.data.toString(), '{ "a" : [1, "\\u00e9"] }');
  t.equal(event.metadata.toString(), '[ ]');
});

t.test('through a node: every kind of value is stored as the bytes sent; bad bodies are refused with a code', async (t) => {
  const node = await startNode(t);
  const values = ['{ "n" : 123123123123123123, "f": 1.0, "e": 1E+2 }', '[ [ ], { "a": [ { } ] } ]', '"\\"quoted\\" \\\\ \\u00e9 é 😀"', 'null', '-0.5', '{"a":1,"a":2}', '"{\\"json\\": \\"in a string\\"}"'];
  const body = `[\n${values.map((data) => `  { "eventType" : "T\\u00e9", "eventId" : "${randomUUID()}", "data" : ${data}, "metadata": {"m" :\t1} }`).join(',\n')}\n]`;
  t.equal((await adminFetch(`${node.url}/streams/slices`, { method: 'POST', body, headers: { 'content-type': MediaType.eventsJson } })).status, 201);
  const stored = node.engine.readStreamForward('slices', 0, values.length).events;
  t.same(stored.map((event) => event.data.toString()), ['{ "n" : 123123123123123123, "f": 1.0, "e": 1E+2 }', '[ [ ], { "a": [ { } ] } ]', '"quoted" \\ é é 😀', '', '-0.5', '{"a":1,"a":2}', '{"json": "in a string"}'],
    'objects, arrays and numbers as sent; a string as its text; null as nothing');
  t.same(stored.map((event) => event.metadata.toString()), values.map(() => '{"m" :\t1}'), 'metadata as sent');
  t.same(stored.map((event) => event.eventType), values.map(() => 'Té'), 'the event type unescaped');

  for (const [bad, code] of [[body.slice(0, -1), 'SVCDB_ERR_HTTP_REQUEST_INVALID'], [body.slice(0, body.lastIndexOf('"data"')), 'SVCDB_ERR_HTTP_REQUEST_INVALID'], ['[]', 'SVCDB_ERR_EVENT_INVALID']]) {
    const reply = await adminFetch(`${node.url}/streams/refused`, { method: 'POST', body: bad, headers: { 'content-type': MediaType.eventsJson } });
    t.equal(reply.status, 400, `${bad.length} bytes refused`);
    t.match(await reply.json(), { code }, code);
  }
  t.equal(node.engine.readStreamForward('refused', 0, 1).events.length, 0, 'nothing of a refused batch is written');
});
