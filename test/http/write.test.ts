import t from 'tap';
import { ADMIN_AUTH, adminFetch } from '../helpers/auth.js';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { Errors } from '../../src/common/errors.js';
import { EventFlags } from '../../src/storage/log/record.js';
import { postEvent, startNode } from '../helpers/node.js';

const JSON_EVENT = { 'content-type': 'application/json', 'svc-eventtype': 'Thing' };

async function errorCode(response: Response): Promise<string> {
  return ((await response.json()) as { code: string }).code;
}

t.test('a raw JSON event: 201, Location of the event, stored as sent and flagged JSON', async (t) => {
  const node = await startNode(t);
  const body = '{"a": 1,  "spaced": true}';
  const response = await postEvent(`${node.url}/streams/raw-1`, body, { ...JSON_EVENT, 'svc-eventid': randomUUID() });
  t.equal(response.status, 201);
  t.equal(response.statusText, 'Created');
  t.equal(response.headers.get('location'), `${node.url}/streams/raw-1/0`);
  const event = node.engine.readEvent('raw-1', 0).event!;
  t.equal(event.data.toString(), body, 'the body is the data, byte for byte');
  t.equal(event.eventType, 'Thing');
  t.ok(event.flags & EventFlags.isJson);
});

t.test('XML and octet-stream bodies are stored raw and not flagged JSON', async (t) => {
  const node = await startNode(t);
  const bytes = Buffer.from([0, 1, 2, 250, 255]);
  for (const [type, body] of [['application/xml', '<a>1</a>'], ['text/xml', '<b/>'], ['application/octet-stream', bytes]] as const) {
    const response = await postEvent(`${node.url}/streams/raw-2`, body, { 'content-type': type, 'svc-eventtype': 'T', 'svc-eventid': randomUUID() });
    t.equal(response.status, 201, type);
  }
  const events = node.engine.readStreamForward('raw-2', 0, 10).events;
  t.same(events.map((e) => e.flags & EventFlags.isJson), [0, 0, 0]);
  t.same(events[2].data, bytes);
});

t.test('without Svc-EventId: 307 to an idempotent URI; re-posting there is idempotent', async (t) => {
  const node = await startNode(t);
  const first = await postEvent(`${node.url}/streams/redirected?x=1`, '{"n":1}', JSON_EVENT);
  t.equal(first.status, 307);
  t.equal(await first.text(), 'Forwarding to idempotent URI');
  const location = first.headers.get('location')!;
  t.match(location, new RegExp(`^${node.url}/streams/redirected/incoming/[0-9a-f-]{36}$`));
  t.equal(node.engine.readStreamForward('redirected', 0, 10).status, 'notFound', 'nothing written yet');
  for (let i = 0; i < 3; i++) {
    const again = await postEvent(location, '{"n":1}', JSON_EVENT);
    t.equal(again.status, 201);
    t.equal(again.headers.get('location'), `${node.url}/streams/redirected/0`, 'the same Location every time');
  }
  const events = node.engine.readStreamForward('redirected', 0, 10).events;
  t.equal(events.length, 1, 'written once');
  t.equal(events[0].eventId, location.split('/').pop(), 'the path GUID is the event id');
});

t.test('a batch is written atomically, data and metadata encoded by kind', async (t) => {
  const node = await startNode(t);
  const ids = [randomUUID(), randomUUID(), randomUUID()];
  const batch = [
    { eventId: ids[0], eventType: 'Obj', data: { a: 1 }, metadata: { m: true } },
    { eventId: ids[1], eventType: 'Str', data: 'plain text' },
    { eventId: ids[2], eventType: 'JsonStr', data: '{"b":2}', metadata: null },
  ];
  const response = await adminFetch(`${node.url}/streams/batch`, { method: 'POST', body: JSON.stringify(batch), headers: { 'content-type': 'application/vnd.svc.events+json' } });
  t.equal(response.status, 201);
  t.equal(response.headers.get('location'), `${node.url}/streams/batch/0`);
  const events = node.engine.readStreamForward('batch', 0, 10).events;
  t.same(events.map((e) => e.eventId), ids);
  t.same(JSON.parse(events[0].data.toString()), { a: 1 });
  t.same(JSON.parse(events[0].metadata.toString()), { m: true });
  t.equal(events[1].data.toString(), 'plain text');
  t.notOk(events[1].flags & EventFlags.isJson);
  t.ok(events[2].flags & EventFlags.isJson, 'a string holding JSON is JSON');
  const repeat = await adminFetch(`${node.url}/streams/batch`, { method: 'POST', body: JSON.stringify(batch), headers: { 'content-type': 'application/vnd.svc.events+json' } });
  t.equal(repeat.status, 201);
  t.equal(repeat.headers.get('location'), `${node.url}/streams/batch/0`, 'an idempotent repeat');
  t.equal(node.engine.readStreamForward('batch', 0, 10).events.length, 3);
});

t.test('malformed batches are refused with a code and write nothing', async (t) => {
  const node = await startNode(t);
  const cases: Array<[string, string]> = [
    ['{not json', Errors.httpRequestInvalid.code],
    ['{"eventId":"x"}', Errors.invalidEvent.code],
    ['[]', Errors.invalidEvent.code],
    [JSON.stringify([{ eventType: 'T', data: {} }]), Errors.eventIdMissing.code],
    [JSON.stringify([{ eventId: 'nope', eventType: 'T' }]), Errors.invalidEvent.code],
    [JSON.stringify([{ eventId: randomUUID(), eventType: '' }]), Errors.invalidEvent.code],
    [JSON.stringify([{ eventId: randomUUID(), eventType: 'T' }, 7]), Errors.invalidEvent.code],
  ];
  for (const [body, code] of cases) {
    const response = await adminFetch(`${node.url}/streams/bad-batch`, { method: 'POST', body, headers: { 'content-type': 'application/vnd.svc.events+json' } });
    t.equal(response.status, 400, body);
    t.equal(await errorCode(response), code, body);
  }
  t.equal(node.engine.readStreamForward('bad-batch', 0, 10).status, 'notFound');
});

t.test('expected version: mismatch is 400 "Wrong expected EventNumber" with Svc-CurrentVersion', async (t) => {
  const node = await startNode(t);
  const post = (expected?: string) => postEvent(`${node.url}/streams/versions`, '{}', {
    ...JSON_EVENT, 'svc-eventid': randomUUID(), ...(expected === undefined ? {} : { 'svc-expectedversion': expected }),
  });
  t.equal((await post('-1')).status, 201);
  const mismatch = await post('-1');
  t.equal(mismatch.status, 400);
  t.equal(mismatch.statusText, 'Wrong expected EventNumber');
  t.equal(mismatch.headers.get('svc-currentversion'), '0');
  t.equal(await errorCode(mismatch), Errors.wrongExpectedVersion.code);
  t.equal((await post('0')).status, 201);
  t.equal((await post('-4')).status, 201);
  t.equal((await post()).status, 201, 'absent means any');
  for (const bad of ['abc', '-3', '1.5', '', '-5']) {
    const response = await post(bad);
    t.equal(response.status, 400, `'${bad}'`);
    t.equal(await errorCode(response), Errors.httpHeaderInvalid.code);
  }
  t.equal(node.engine.readStreamForward('versions', 0, 10).lastEventNumber, 3);
});

t.test('headers and bodies a client can get wrong: 4xx with a code, nothing written', async (t) => {
  const node = await startNode(t);
  const url = `${node.url}/streams/picky`;
  const expectations: Array<[Promise<Response>, number, string]> = [
    [postEvent(url, '{}', { 'content-type': 'application/json', 'svc-eventid': randomUUID() }), 400, Errors.eventTypeMissing.code],
    [postEvent(url, '{}', { ...JSON_EVENT, 'svc-eventid': 'not-a-guid' }), 400, Errors.httpHeaderInvalid.code],
    [postEvent(url, '{}', { 'content-type': 'image/png', 'svc-eventtype': 'T', 'svc-eventid': randomUUID() }), 415, Errors.httpMediaType.code],
    [adminFetch(url, { method: 'POST', body: '{}' }), 415, Errors.httpMediaType.code],
    [postEvent(url, '{}', { ...JSON_EVENT, 'svc-eventid': randomUUID(), 'svc-requireleader': 'maybe' }), 400, Errors.httpHeaderInvalid.code],
    [postEvent(url, Buffer.alloc(5 * 1024 * 1024, 0x61), { 'content-type': 'application/octet-stream', 'svc-eventtype': 'T', 'svc-eventid': randomUUID() }), 413, Errors.eventsTooLarge.code],
    [adminFetch(url, { method: 'PUT', body: '{}' }), 405, Errors.httpMethodNotAllowed.code],
    [adminFetch(`${node.url}/streams/picky/incoming/not-a-guid`, { method: 'POST', body: '{}', headers: JSON_EVENT }), 400, Errors.httpPathInvalid.code],
    [adminFetch(`${node.url}/streams/picky/incoming/${randomUUID()}`, { method: 'POST', body: '[]', headers: { 'content-type': 'application/vnd.svc.events+json' } }), 415, Errors.httpMediaType.code],
  ];
  for (const [pending, status, code] of expectations) {
    const response = await pending;
    t.equal(response.status, status, code);
    t.equal(await errorCode(response), code);
  }
  for (const header of ['svc-requireleader', 'svc-requiremaster', 'svc-requiresmaster']) {
    const response = await postEvent(url, '{}', { ...JSON_EVENT, 'svc-eventid': randomUUID(), [header]: 'True' });
    t.equal(response.status, 201, `${header}: True is accepted on the leader`);
  }
  t.equal(node.engine.readStreamForward('picky', 0, 10).events.length, 3, 'only the three valid appends');
});

t.test('OPTIONS answers with the allowed methods; a trailing slash redirects', async (t) => {
  const node = await startNode(t);
  const options = await adminFetch(`${node.url}/streams/any`, { method: 'OPTIONS' });
  t.equal(options.status, 200);
  t.match(options.headers.get('access-control-allow-methods'), /POST/);
  t.equal(options.headers.get('access-control-allow-origin'), '*');
  t.match(options.headers.get('access-control-expose-headers'), /Svc-CurrentVersion/);
  const slash = await postEvent(`${node.url}/streams/any/?q=1`, '{}', JSON_EVENT);
  t.equal(slash.status, 307);
  t.equal(slash.headers.get('location'), `${node.url}/streams/any?q=1`, 'the absolute URL, query kept');
});

t.test('soft delete: 204, then 404 on reads; an append revives the stream with continued numbering', async (t) => {
  const node = await startNode(t);
  for (let i = 0; i < 3; i++) await postEvent(`${node.url}/streams/soft`, '{}', { ...JSON_EVENT, 'svc-eventid': randomUUID() });
  const wrong = await adminFetch(`${node.url}/streams/soft`, { method: 'DELETE', headers: { 'svc-expectedversion': '0' } });
  t.equal(wrong.status, 400);
  t.equal(wrong.headers.get('svc-currentversion'), '2');
  const deleted = await adminFetch(`${node.url}/streams/soft`, { method: 'DELETE', headers: { 'svc-expectedversion': '2' } });
  t.equal(deleted.status, 204);
  t.equal(deleted.statusText, 'Stream deleted');
  t.equal(node.engine.readStreamForward('soft', 0, 10).status, 'notFound');
  const revived = await postEvent(`${node.url}/streams/soft`, '{}', { ...JSON_EVENT, 'svc-eventid': randomUUID() });
  t.equal(revived.headers.get('location'), `${node.url}/streams/soft/3`);
});

t.test('hard delete: 204, then 410 "Stream deleted" for writes and metadata, forever', async (t) => {
  const node = await startNode(t);
  await postEvent(`${node.url}/streams/hard`, '{}', { ...JSON_EVENT, 'svc-eventid': randomUUID() });
  const bad = await adminFetch(`${node.url}/streams/hard`, { method: 'DELETE', headers: { 'svc-harddelete': 'maybe' } });
  t.equal(bad.status, 400);
  t.equal((await adminFetch(`${node.url}/streams/hard`, { method: 'DELETE', headers: { 'svc-harddelete': 'true' } })).status, 204);
  const write = await postEvent(`${node.url}/streams/hard`, '{}', { ...JSON_EVENT, 'svc-eventid': randomUUID() });
  t.equal(write.status, 410);
  t.equal(write.statusText, 'Stream deleted');
  t.equal(await errorCode(write), Errors.streamDeleted.code);
  const again = await adminFetch(`${node.url}/streams/hard`, { method: 'DELETE', headers: { 'svc-harddelete': 'true' } });
  t.equal(again.status, 410);
  const metadata = await adminFetch(`${node.url}/streams/hard/metadata`, { method: 'POST', body: '{"$maxCount":1}', headers: { 'content-type': 'application/json', 'svc-eventid': randomUUID() } });
  t.equal(metadata.status, 410);
});

t.test('an XML batch: <event> elements, their XML content stored as JSON, atomic and idempotent', async (t) => {
  const node = await startNode(t);
  const ids = [randomUUID(), randomUUID(), randomUUID()];
  const xml = `<?xml version="1.0" encoding="utf-8"?><Events>
    <event><eventId>${ids[0]}</eventId><eventType>Obj</eventType><data><a>1</a><b><c>x &amp; y</c></b></data><metadata><m>true</m></metadata></event>
    <event><eventId>${ids[1]}</eventId><eventType>Str</eventType><data>plain text</data></event>
    <event><eventId>${ids[2]}</eventId><eventType>JsonStr</eventType><data>{"b":2}</data></event>
  </Events>`;
  const post = (body: string, type = 'application/vnd.svc.events+xml', stream = 'xml-batch') =>
    adminFetch(`${node.url}/streams/${stream}`, { method: 'POST', body, headers: { 'content-type': type } });
  const response = await post(xml);
  t.equal(response.status, 201);
  t.equal(response.headers.get('location'), `${node.url}/streams/xml-batch/0`);
  const events = node.engine.readStreamForward('xml-batch', 0, 10).events;
  t.same(events.map((e) => e.eventId), ids);
  t.same(JSON.parse(events[0].data.toString()), { a: '1', b: { c: 'x & y' } }, 'elements become JSON, values text');
  t.same(JSON.parse(events[0].metadata.toString()), { m: 'true' });
  t.ok(events[0].flags & EventFlags.isJson);
  t.equal(events[1].data.toString(), 'plain text');
  t.notOk(events[1].flags & EventFlags.isJson, 'text stays text');
  t.ok(events[2].flags & EventFlags.isJson, 'text holding JSON is JSON');
  t.equal((await post(xml)).headers.get('location'), `${node.url}/streams/xml-batch/0`, 'an idempotent repeat');

  const one = (id: string) => `<Events><event><eventId>${id}</eventId><eventType>One</eventType><data><n>1</n></data></event></Events>`;
  for (const alias of ['application/vnd.svc.event+xml', 'application/atom+xml']) {
    t.equal((await post(one(randomUUID()), alias, 'xml-alias')).status, 201, alias);
  }
  t.equal(node.engine.readStreamForward('xml-alias', 0, 10).events.length, 2, 'a single <event> is a batch of one');

  const refusals: Array<[string, string]> = [
    ['<Events><event><eventId>', Errors.invalidEvent.code],
    [`<!DOCTYPE e [<!ENTITY x "y">]>${one(randomUUID())}`, Errors.invalidEvent.code],
    ['<Events><thing/></Events>', Errors.invalidEvent.code],
    ['<Events/>', Errors.invalidEvent.code],
    [`<Events><event><eventId>${randomUUID()}</eventId><eventType>T</eventType><data>${'<a>'.repeat(100_000)}x${'</a>'.repeat(100_000)}</data></event></Events>`, Errors.invalidEvent.code],
    [`<Events><event><eventType>T</eventType></event></Events>`, Errors.eventIdMissing.code],
    [`<Events><event><eventId>${randomUUID()}</eventId></event><event><eventId>not-a-uuid</eventId><eventType>T</eventType></event></Events>`, Errors.invalidEvent.code],
  ];
  for (const [body, code] of refusals) {
    const refused = await post(body, 'application/vnd.svc.events+xml', 'xml-refused');
    t.equal(refused.status, 400, body.slice(0, 40));
    t.equal(await errorCode(refused), code);
  }
  t.equal(node.engine.readStreamForward('xml-refused', 0, 10).status, 'notFound', 'nothing written by a refused batch');
});

t.test('metadata writes: JSON body with Svc-EventId, or a one-event batch; stored as sent; Location in $$', async (t) => {
  const node = await startNode(t);
  const post = (body: string, headers: Record<string, string>, stream = 'meta') =>
    adminFetch(`${node.url}/streams/${encodeURIComponent(stream)}/metadata`, { method: 'POST', body, headers });
  const ok = await post('{"$maxCount": 2, "custom": "x"}', { 'content-type': 'application/json', 'svc-eventid': randomUUID() });
  t.equal(ok.status, 201);
  t.equal(ok.headers.get('location'), `${node.url}/streams/%24%24meta/0`);
  t.equal(node.engine.getStreamMetadata('meta').metadata.text, '{"$maxCount": 2, "custom": "x"}', 'the body, byte for byte');
  t.equal(node.engine.getStreamMetadata('meta').metadata.maxCount, 2);
  const batch = await post(JSON.stringify([{ eventId: randomUUID(), eventType: '$metadata', data: { $tb: 1 } }]), { 'content-type': 'application/vnd.svc.events+json' });
  t.equal(batch.status, 201);
  t.equal(node.engine.getStreamMetadata('meta').metadata.truncateBefore, 1);
  // As the wire protocol has it: metadata is the client's bytes; what is not a JSON object means no metadata.
  const stored = [
    // Deeper than JSON.stringify goes (within the test's 64 KiB chunks).
    `${'{"a":'.repeat(9_000)}1${'}'.repeat(9_000)}`,
    '{"$maxCount": -2}',
    '[1,2]',
    '{oops',
    '',
  ];
  for (const body of stored) {
    const response = await post(body, { 'content-type': 'application/json', 'svc-eventid': randomUUID() });
    t.equal(response.status, 201, `stored: ${body.slice(0, 20)}`);
    t.equal(node.engine.getStreamMetadata('meta').metadata.maxCount, undefined, 'and it sets no $maxCount');
  }
  const refusals: Array<[Promise<Response>, string]> = [
    [post('{"$maxCount": 2}', { 'content-type': 'application/json' }), Errors.eventIdMissing.code],
    [post('{"$maxCount": 2}', { 'content-type': 'application/json', 'svc-eventid': randomUUID(), 'svc-eventtype': 'Other' }), Errors.invalidEvent.code],
    [post('{"$maxCount": "two"}', { 'content-type': 'application/json', 'svc-eventid': randomUUID() }), Errors.invalidArgument.code],
    [post('{"$acl": {"$r": 1}}', { 'content-type': 'application/json', 'svc-eventid': randomUUID() }), Errors.invalidArgument.code],
    [post('{}', { 'content-type': 'application/json', 'svc-eventid': randomUUID() }, '$$meta'), Errors.invalidStreamName.code],
    [post('{}', { 'content-type': 'application/json', 'svc-eventid': randomUUID(), 'svc-expectedversion': '7' }), Errors.wrongExpectedVersion.code],
  ];
  for (const [pending, code] of refusals) {
    const response = await pending;
    t.equal(response.status, 400, code);
    t.equal(await errorCode(response), code);
  }
  t.equal(node.engine.readStreamForward('$$meta', 0, 10).events.length, 2 + stored.length, 'only the writes that were not refused');
});

t.test('the same event sent on many connections at once is written once; every sender gets its Location', async (t) => {
  const node = await startNode(t);
  for (const expected of ['-2', '-1']) {
    const stream = `same-id${expected}`;
    const headers = { ...JSON_EVENT, 'svc-eventid': randomUUID(), 'svc-expectedversion': expected };
    const responses = await Promise.all(Array.from({ length: 10 }, () => postEvent(`${node.url}/streams/${stream}`, '{"once":true}', headers)));
    t.same(responses.map((r) => r.status), Array(10).fill(201), `expected version ${expected}: all succeed`);
    t.same(new Set(responses.map((r) => r.headers.get('location'))), new Set([`${node.url}/streams/${stream}/0`]), 'at the one event');
    t.equal(node.engine.readStreamForward(stream, 0, 20).events.length, 1, 'written once');
  }
});

t.test('many clients appending with expected versions to one stream: exactly one winner per version', async (t) => {
  const node = await startNode(t);
  const clients = 12;
  const versions = 15;
  const winners: string[][] = [];
  for (let version = -1; version < versions - 1; version++) {
    const responses = await Promise.all(Array.from({ length: clients }, (_, client) =>
      postEvent(`${node.url}/streams/contended`, JSON.stringify({ client }), { ...JSON_EVENT, 'svc-eventid': randomUUID(), 'svc-expectedversion': String(version) })));
    const statuses = responses.map((r) => r.status);
    t.equal(statuses.filter((s) => s === 201).length, 1, `one winner at ${version}`);
    t.equal(statuses.filter((s) => s === 400).length, clients - 1, 'the others are told the version moved');
    winners.push(responses.filter((r) => r.status === 201).map((r) => r.headers.get('location')!));
  }
  t.same(winners.flat(), Array.from({ length: versions }, (_, n) => `${node.url}/streams/contended/${n}`));
});

t.test('garbage in headers and bodies never causes a 5xx', async (t) => {
  const node = await startNode(t);
  const junk = ['', '\u0000', '[', ']]', '{"eventId":1}', 'null', '[null]', '[{"eventId":"' + randomUUID() + '","eventType":{}}]', 'x'.repeat(10_000)];
  const types = ['application/json', 'application/vnd.svc.events+json', 'application/vnd.svc.event+json', 'text/xml', 'application/octet-stream', 'application/x-www-form-urlencoded'];
  let fivexx = 0;
  for (const body of junk) {
    for (const type of types) {
      const response = await postEvent(`${node.url}/streams/junk`, body, { 'content-type': type, 'svc-eventtype': 'T', 'svc-eventid': randomUUID(), 'svc-expectedversion': '-2' });
      if (response.status >= 500) fivexx++;
      await response.arrayBuffer();
    }
  }
  t.equal(fivexx, 0);
});

t.test('long stream names and deeply nested data are handled, not 5xx', async (t) => {
  const node = await startNode(t);
  const longName = `long-${'ü'.repeat(400)}`;
  const ok = await postEvent(`${node.url}/streams/${encodeURIComponent(longName)}`, '{}', { ...JSON_EVENT, 'svc-eventid': randomUUID() });
  t.equal(ok.status, 201, 'a stream name of 805 bytes works over HTTP');
  t.equal(node.engine.readStreamForward(longName, 0, 1).events.length, 1);
  const tooLong = await postEvent(`${node.url}/streams/${'x'.repeat(1500)}`, '{}', { ...JSON_EVENT, 'svc-eventid': randomUUID() });
  t.equal(tooLong.status, 400);
  t.equal(await errorCode(tooLong), Errors.invalidStreamName.code);
  const deep = `[{"eventId":"${randomUUID()}","eventType":"Deep","data":${'['.repeat(20_000)}${']'.repeat(20_000)}}]`;
  const nested = await adminFetch(`${node.url}/streams/deep`, { method: 'POST', body: deep, headers: { 'content-type': 'application/vnd.svc.events+json' } });
  t.equal(nested.status, 201, 'nesting at any depth is stored, as sent');
  t.equal(node.engine.readEvent('deep', 0).event!.data.toString(), `${'['.repeat(20_000)}${']'.repeat(20_000)}`);
});

// Regression: the nil id was accepted, and every later event sent with it was taken for a repeat
// of the first, answered 201 and never written.
t.test('the nil event id (all zeros) is refused in every form, and nothing is written', async (t) => {
  const node = await startNode(t);
  const nil = '00000000-0000-0000-0000-000000000000';
  const batch = (stream: string, body: string, type = 'application/vnd.svc.events+json') =>
    adminFetch(`${node.url}/streams/${stream}`, { method: 'POST', body, headers: { 'content-type': type } });
  const refusals: Array<[string, Promise<Response>]> = [
    ['raw event, Svc-EventId', postEvent(`${node.url}/streams/nil`, '{}', { ...JSON_EVENT, 'svc-eventid': nil })],
    ['incoming path', postEvent(`${node.url}/streams/nil/incoming/${nil}`, '{}', JSON_EVENT)],
    ['JSON batch of one', batch('nil', JSON.stringify([{ eventId: nil, eventType: 'T', data: {} }]))],
    ['JSON batch, second entry', batch('nil', JSON.stringify([{ eventId: randomUUID(), eventType: 'T' }, { eventId: nil, eventType: 'T' }]))],
    ['XML batch', batch('nil', `<Events><event><eventId>${nil}</eventId><eventType>T</eventType></event></Events>`, 'application/vnd.svc.events+xml')],
    ['metadata, Svc-EventId', adminFetch(`${node.url}/streams/nil/metadata`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', 'svc-eventid': nil } })],
    ['metadata batch', batch('nil/metadata', JSON.stringify([{ eventId: nil, eventType: '$metadata', data: {} }]))],
  ];
  for (const [form, pending] of refusals) {
    const response = await pending;
    t.equal(response.status, 400, form);
    const body = (await response.json()) as { code: string; message: string };
    t.equal(body.code, Errors.eventIdNil.code, form);
    t.match(body.message, /nil UUID/, `${form}: the message says what is wrong`);
  }
  t.equal(node.engine.readStreamForward('nil', 0, 10).status, 'notFound', 'nothing written');
  t.equal(node.engine.readStreamForward('$$nil', 0, 10).status, 'notFound', 'no metadata written');
  await t.rejects(node.engine.append('nil', -2, [{ eventId: nil, eventType: 'T', data: Buffer.alloc(0), metadata: Buffer.alloc(0), isJson: false }]),
    { code: Errors.eventIdNil.code }, 'the engine refuses it too');
});

// Regression: $all took appends (an event no read could reach) and deletes, and after a hard
// delete the metadata of $all, its ACL among it, could never be written again.
t.test('$all refuses appends and deletes with a 400 and stays unchanged; its metadata stays writable', async (t) => {
  const node = await startNode(t);
  const all = `${node.url}/streams/%24all`;
  const batch = JSON.stringify([{ eventId: randomUUID(), eventType: 'T', data: {} }]);
  const refusals: Array<[string, Promise<Response>]> = [
    ['batch append', adminFetch(all, { method: 'POST', body: batch, headers: { 'content-type': 'application/vnd.svc.events+json' } })],
    ['raw append', postEvent(all, '{}', { ...JSON_EVENT, 'svc-eventid': randomUUID() })],
    ['incoming append', postEvent(`${all}/incoming/${randomUUID()}`, '{}', JSON_EVENT)],
    ['soft delete', adminFetch(all, { method: 'DELETE' })],
    ['hard delete', adminFetch(all, { method: 'DELETE', headers: { 'svc-harddelete': 'true' } })],
  ];
  for (const [what, pending] of refusals) {
    const response = await pending;
    t.equal(response.status, 400, what);
    const body = (await response.json()) as { code: string; message: string };
    t.equal(body.code, Errors.invalidStreamName.code, what);
    t.match(body.message, /\$all is the log of every stream and cannot be/, `${what}: the message says why`);
  }
  t.equal(node.engine.readStreamForward('$all', 0, 10).status, 'notFound', 'no stream named $all was written');
  t.equal(node.engine.readStreamForward('$$$all', 0, 10).status, 'notFound', 'no $tb or tombstone was written for $all');
  const metadata = await adminFetch(`${all}/metadata`, { method: 'POST', body: '{"$acl":{"$r":"$admins"}}', headers: { 'content-type': 'application/json', 'svc-eventid': randomUUID() } });
  t.equal(metadata.status, 201, 'the metadata of $all is written');
  t.equal(metadata.headers.get('location'), `${node.url}/streams/%24%24%24all/0`);
  t.equal(node.engine.getStreamMetadata('$all').metadata.text, '{"$acl":{"$r":"$admins"}}');
});

/** A raw append whose header values go out as the UTF-8 bytes of their text (fetch sends only Latin-1). */
function postWithUtf8Headers(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const latin1 = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Buffer.from(value).toString('latin1')]));
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: 'POST', headers: { authorization: ADMIN_AUTH, ...latin1 } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body: Buffer.concat(chunks).toString('utf8') }));
    });
    request.on('error', reject);
    // A Buffer body: a string body would carry the header block out in its own encoding (UTF-8).
    request.end(Buffer.from('{}'));
  });
}

// Regression: a header's UTF-8 bytes were read one character per byte, so `café` was stored as `cafÃ©`.
t.test('Svc-EventType is read as UTF-8: the event type is stored as sent; bytes that are not UTF-8 are refused', async (t) => {
  const node = await startNode(t);
  const sent = await postWithUtf8Headers(`${node.url}/streams/typed`, { ...JSON_EVENT, 'svc-eventtype': 'café ☕', 'svc-eventid': randomUUID() });
  t.equal(sent.status, 201, sent.body);
  const event = node.engine.readEvent('typed', 0).event!;
  t.equal(event.eventType, 'café ☕');
  t.same(Buffer.from(event.eventType), Buffer.from('café ☕'), 'the bytes the client sent');
  const batch = JSON.stringify([{ eventId: randomUUID(), eventType: 'café ☕', data: {} }]);
  await adminFetch(`${node.url}/streams/typed`, { method: 'POST', body: batch, headers: { 'content-type': 'application/vnd.svc.events+json' } });
  t.equal(node.engine.readEvent('typed', 1).event!.eventType, event.eventType, 'the same type as sent in a batch body');

  // 'caf\xe9' is Latin-1 é: one byte 0xE9, which is no UTF-8.
  const latin1 = await postEvent(`${node.url}/streams/typed`, '{}', { ...JSON_EVENT, 'svc-eventtype': 'caf\u00e9', 'svc-eventid': randomUUID() });
  t.equal(latin1.status, 400);
  const body = (await latin1.json()) as { code: string; message: string };
  t.equal(body.code, Errors.httpHeaderInvalid.code);
  t.match(body.message, /Svc-EventType.*not UTF-8/);
  t.equal(node.engine.readStreamForward('typed', 0, 10).events.length, 2, 'nothing written by the refused append');
});

/** A request on the path exactly as given: fetch would resolve `%2E%2E` as a parent directory. */
function rawRequest(url: string, method: string, headers: Record<string, string>, body = ''): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    // Host and port from the URL; the path as written, after them.
    const [, hostAndPort, path] = /^http:\/\/([^/]+)(\/.*)$/.exec(url)!;
    const [host, port] = hostAndPort.split(':');
    const request = httpRequest({ host, port, path, method, headers: { authorization: ADMIN_AUTH, ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    request.on('error', reject);
    request.end(Buffer.from(body));
  });
}

// Regression: the names went into URLs as they are, and `/streams/../0` is `/0` to a URL client.
t.test('streams named . and ..: the Location and the feed links escape the dots', async (t) => {
  const node = await startNode(t);
  for (const [name, segment] of [['.', '%2E'], ['..', '%2E%2E']]) {
    const batch = JSON.stringify([{ eventId: randomUUID(), eventType: 'T', data: {} }]);
    const created = await rawRequest(`${node.url}/streams/${segment}`, 'POST', { 'content-type': 'application/vnd.svc.events+json' }, batch);
    t.equal(created.status, 201, name);
    t.equal(created.headers.location, `${node.url}/streams/${segment}/0`, `${name}: the Location keeps the name`);
    t.equal(node.engine.readEvent(name, 0).status, 'success', `${name}: written under its name`);
    const event = await rawRequest(created.headers.location as string, 'GET', { accept: 'application/vnd.svc.event+json' });
    t.equal(event.status, 200, `${name}: the Location leads to the event`);
    const feed = JSON.parse((await rawRequest(`${node.url}/streams/${segment}`, 'GET', { accept: 'application/vnd.svc.atom+json' })).body) as
      { links: Array<{ uri: string }>; entries: Array<{ id: string }> };
    for (const uri of [...feed.links.map((link) => link.uri), ...feed.entries.map((entry) => entry.id)]) {
      t.ok(uri.startsWith(`${node.url}/streams/${segment}`) && !uri.includes('/.'), `${name}: ${uri}`);
    }
  }
});

// Regression: these refusals said what was not wrong: a numeric eventType was "empty", a batch
// repeating a written event before new ones told the client to retry (which writes the repeat
// again), and a 415 did not say which types are accepted.
t.test('append refusals say what to fix', async (t) => {
  const node = await startNode(t);
  const post = (body: string, type = 'application/vnd.svc.events+json') =>
    adminFetch(`${node.url}/streams/told`, { method: 'POST', body, headers: { 'content-type': type } });
  const messageOf = async (response: Response) => ((await response.json()) as { message: string }).message;

  const numeric = await post(JSON.stringify([{ eventId: randomUUID(), eventType: 5, data: {} }]));
  t.equal(numeric.status, 400);
  t.match(await messageOf(numeric), /eventType of entry 0 is a number; it must be a non-empty string/);

  const written = { eventId: randomUUID(), eventType: 'T', data: {} };
  t.equal((await post(JSON.stringify([written]))).status, 201);
  const mixed = await post(JSON.stringify([written, { eventId: randomUUID(), eventType: 'T', data: {} }]));
  t.equal(mixed.status, 400);
  const mixedMessage = await messageOf(mixed);
  t.match(mixedMessage, /starts with 1 event\(s\) already written to stream told and goes on with new ones; send only the new events/);
  t.notMatch(mixedMessage, /retry with its current version/, 'no advice to send the repeat again');

  const plain = await post('x', 'text/plain');
  t.equal(plain.status, 415);
  t.match(await messageOf(plain), /Invalid or missing Content-Type: text\/plain; send one of .*application\/vnd\.svc\.events\+json.*application\/octet-stream/);
  const incoming = await adminFetch(`${node.url}/streams/told/incoming/${randomUUID()}`, { method: 'POST', body: '[]', headers: { 'content-type': 'application/vnd.svc.events+json' } });
  t.match(await messageOf(incoming), /send one of application\/json, .*application\/octet-stream$/, 'incoming/{guid} lists the single-event types');
  t.equal(node.engine.readStreamForward('told', 0, 10).events.length, 1, 'only the first event was written');
});
