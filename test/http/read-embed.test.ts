// Embed levels of feed entries (none, content, rich, body, pretty, tryharder; case-insensitive,
// unknown = none) and link events, resolved and not, in feeds, single events and $all.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import type { NewEvent } from '../../src/storage/streams/write-types.js';
import { adminFetch } from '../helpers/auth.js';
import { postEvent, startNode } from '../helpers/node.js';
import { get, getFeed, titlesOf } from '../helpers/read.js';

const node = await startNode(t);

function event(eventType: string, data: string, metadata: string, isJson: boolean): NewEvent {
  return { eventId: randomUUID(), eventType, data: Buffer.from(data), metadata: Buffer.from(metadata), isJson };
}

await node.engine.append('e', -2, [
  event('Json', '{"a":1}', '{"m":true}', true),
  event('Text', 'plain', '', false),
  event('JsonLooking', '{"b":2}', '', false),
  event('JsonNoMeta', '[1,2]', '', true),
]);
await node.engine.append('links', -2, [
  event('$>', '0@e', '{"lm":1}', false),
  event('$>', '99@e', '', false),
]);

const PLAIN_KEYS = ['title', 'id', 'updated', 'author', 'summary', 'links'];
const RICH_KEYS = ['eventId', 'eventType', 'eventNumber', 'streamId', 'isJson', 'isMetaData', 'isLinkMetaData', 'isRedacted', 'positionEventNumber', 'positionStreamId'];

async function entries(path: string, headers: Record<string, string> = {}) {
  const feed = await getFeed(node, path, headers);
  // Oldest first, to index by event number.
  return feed.entries.slice().reverse();
}

t.test('none (the default, and any unknown value): the plain entry', async (t) => {
  for (const query of ['', '?embed=none', '?embed=bogus', '?embed=']) {
    const [first] = await entries(`/streams/e/0/forward/4${query}`);
    t.same(Object.keys(first), PLAIN_KEYS, `embed ${query || '(absent)'}`);
  }
});

t.test('content: JSON events carry the event document with parsed data and metadata', async (t) => {
  const list = await entries('/streams/e/0/forward/4?embed=content');
  const [json, text, looking, noMeta] = list;
  t.same(json.content, {
    eventStreamId: 'e', eventNumber: 0, eventType: 'Json', eventId: node.engine.readEvent('e', 0).event!.eventId,
    data: { a: 1 }, metadata: { m: true },
  });
  t.notOk('content' in text, 'a non-JSON event has no content');
  t.notOk('content' in looking);
  t.same((noMeta.content as { data: unknown; metadata: unknown }).data, [1, 2]);
  t.equal((noMeta.content as { metadata: unknown }).metadata, '', 'empty metadata is ""');
  t.notOk('isJson' in json, 'no rich fields');
  const upper = await entries('/streams/e/0/forward/1?embed=CONTENT');
  t.ok(upper[0].content, 'case-insensitive');
});

t.test('rich: the event fields and its position, without content or data', async (t) => {
  const [json, text] = await entries('/streams/e/0/forward/4?embed=rich');
  t.same(Object.keys(json).slice(0, RICH_KEYS.length), RICH_KEYS);
  t.match(json, {
    eventType: 'Json', eventNumber: 0, streamId: 'e', isJson: true, isMetaData: true, isLinkMetaData: false, isRedacted: false,
    positionEventNumber: 0, positionStreamId: 'e',
  });
  t.notOk('content' in json);
  t.notOk('data' in json);
  t.match(text, { isJson: false, isMetaData: false });
});

t.test('body: rich plus the data and metadata of JSON events, as sent; null for an event not flagged JSON', async (t) => {
  const [json, text, looking, noMeta] = await entries('/streams/e/0/forward/4?embed=Body');
  t.equal(json.data, '{"a":1}');
  t.equal(json.metaData, '{"m":true}');
  t.ok('data' in text && text.data === null, 'a non-JSON event has "data": null');
  t.equal(text.metaData, null);
  t.equal(looking.data, null, 'JSON-looking data not flagged JSON is not shown either');
  t.equal(noMeta.data, '[1,2]');
  t.equal(noMeta.metaData, null, 'no metadata is null');
});

t.test('pretty: JSON objects re-indented; null for an event not flagged JSON', async (t) => {
  const [json, text, looking, noMeta] = await entries('/streams/e/0/forward/4?embed=pretty');
  t.equal(json.data, '{\n  "a": 1\n}');
  t.equal(json.metaData, '{\n  "m": true\n}');
  t.equal(text.data, null);
  t.equal(looking.data, null);
  t.equal(noMeta.data, '[1,2]', 'only objects are re-indented');
  const [spelledOut] = await entries('/streams/e/0/forward/1?embed=PrettyBody');
  t.same(Object.keys(spelledOut), PLAIN_KEYS, 'the level is spelled pretty; PrettyBody is unknown, so none');
});

t.test('tryharder: non-JSON data that parses as a JSON object is shown as JSON', async (t) => {
  const [json, text, looking] = await entries('/streams/e/0/forward/4?embed=TryHarder');
  t.equal(json.data, '{\n  "a": 1\n}');
  t.equal(text.data, 'plain', 'plain text is shown as text');
  t.equal(text.isJson, false);
  t.equal(looking.data, '{\n  "b": 2\n}');
  t.equal(looking.isJson, true);
});

t.test('links resolve by default in stream feeds: the entry describes the target, with the link\'s time and type', async (t) => {
  const [resolved, dangling] = await entries('/streams/links/0/forward/2?embed=tryharder');
  t.equal(resolved.title, '0@e');
  t.equal(resolved.id, `${node.url}/streams/e/0`);
  t.equal(resolved.summary, '$>');
  const linkRecord = node.engine.readEvent('links', 0).event!;
  t.equal(resolved.updated, new Date(linkRecord.timestamp).toISOString(), 'updated is the link\'s');
  t.match(resolved, {
    eventType: 'Json', eventNumber: 0, streamId: 'e', positionEventNumber: 0, positionStreamId: 'links',
    isLinkMetaData: true, linkMetaData: '{\n  "lm": 1\n}', data: '{\n  "a": 1\n}',
  });
  t.equal(dangling.title, '1@links', 'a link whose target is missing stays itself');
  t.same(dangling.links, [{ uri: `${node.url}/streams/e/99`, relation: 'edit' }, { uri: `${node.url}/streams/e/99`, relation: 'alternate' }], 'its links point at the target');
  t.same(titlesOf(await getFeed(node, '/streams/links', { 'svc-resolvelinktos': 'False' })), ['1@links', '0@links'], 'Svc-ResolveLinkTos: false');
  const unresolved = await getFeed(node, '/streams/links/0/forward/1?embed=rich', { 'svc-resolvelinktos': 'false' });
  t.match(unresolved.entries[0], { title: '0@links', summary: '$>', eventType: '$>', positionStreamId: 'links' });
});

t.test('a single link event: its target, or 404 when the target is missing; itself when not resolving', async (t) => {
  const target = await get(node, '/streams/links/0', { accept: 'application/json' });
  t.equal(target.status, 200);
  t.same(JSON.parse(target.text), { a: 1 });
  const itself = await get(node, '/streams/links/0', { accept: 'application/json', 'svc-resolvelinktos': 'false' });
  t.equal(JSON.parse(itself.text), '0@e', 'non-JSON data as a JSON string');
  const dangling = await get(node, '/streams/links/1', { accept: 'application/json' });
  t.equal(dangling.status, 404);
  t.equal(JSON.parse(dangling.text).code, 'SVCDB_ERR_EVENT_NOT_FOUND');
  t.equal((await get(node, '/streams/links/1', { accept: 'application/json', 'svc-resolvelinktos': 'false' })).status, 200);
});

t.test('$all does not resolve links unless asked', async (t) => {
  const plain = await getFeed(node, '/streams/%24all/head/backward/2');
  t.same(titlesOf(plain), ['1@links', '0@links']);
  const resolved = await getFeed(node, '/streams/%24all/head/backward/2', { 'svc-resolvelinktos': 'true' });
  t.same(titlesOf(resolved), ['1@links', '0@e']);
});

t.test('a malformed Svc-ResolveLinkTos is a coded 400', async (t) => {
  for (const path of ['/streams/links', '/streams/links/0', '/streams/%24all']) {
    const reply = await get(node, path, { accept: 'application/vnd.svc.atom+json', 'svc-resolvelinktos': 'maybe' });
    t.equal(reply.status, 400, path);
    t.equal(JSON.parse(reply.text).code, 'SVCDB_ERR_HTTP_HEADER_INVALID');
  }
});

t.test('metadata feeds do not resolve links unless asked', async (t) => {
  await node.engine.append('$$e', -2, [event('$>', '0@e', '', false)]);
  t.same(titlesOf(await getFeed(node, '/streams/e/metadata/0/forward/5')), ['0@$$e']);
  t.same(titlesOf(await getFeed(node, '/streams/e/metadata/0/forward/5', { 'svc-resolvelinktos': 'true' })), ['0@e']);
  t.same(titlesOf(await getFeed(node, '/streams/%24%24e')), ['0@e'], 'read as a stream of its own, it resolves by default');
});

t.test('a $streams-style link posted as octet-stream: "data": null at body, so `if (entry.data) JSON.parse(entry.data)` holds', async (t) => {
  const posted = await postEvent(`${node.url}/streams/bin1`, '0@notjson', {
    'content-type': 'application/octet-stream', 'svc-eventtype': 'Bin', 'svc-eventid': randomUUID(),
  });
  t.equal(posted.status, 201);
  const reply = await adminFetch(`${node.url}/streams/bin1/0/forward/1?embed=body`, { headers: { accept: 'application/json' } });
  t.equal(reply.status, 200);
  const text = await reply.text();
  t.match(text, /"data":null,"metaData":null/, 'both fields present, null');
  const [entry] = (JSON.parse(text) as { entries: Array<Record<string, unknown>> }).entries;
  t.match(entry, { eventType: 'Bin', isJson: false, data: null, metaData: null });
  const tried = await adminFetch(`${node.url}/streams/bin1/0/forward/1?embed=tryharder`, { headers: { accept: 'application/json' } });
  t.match((await tried.json() as { entries: Array<Record<string, unknown>> }).entries[0], { isJson: false, data: '0@notjson' }, 'tryharder shows the text');
});

t.test('a link whose target stream was deleted keeps edit and alternate links to the target, in stream feeds and competing-consumer style reads', async (t) => {
  for (const hard of ['false', 'true']) {
    const target = `gone-${hard}`;
    await node.engine.append(target, -2, [event('Json', '{"a":1}', '', true)]);
    await node.engine.append(`links-to-${target}`, -2, [event('$>', `0@${target}`, '', false)]);
    const removed = await adminFetch(`${node.url}/streams/${target}`, { method: 'DELETE', headers: { 'svc-harddelete': hard } });
    t.equal(removed.status, 204);
    const [entry] = await entries(`/streams/links-to-${target}/0/forward/1`);
    const url = `${node.url}/streams/${target}/0`;
    t.same(entry.links, [{ uri: url, relation: 'edit' }, { uri: url, relation: 'alternate' }], `hard delete ${hard}: links to ${target}/0`);
    t.equal(entry.summary, '$>');
    const single = await get(node, `/streams/links-to-${target}/0`, { accept: 'application/json' });
    t.equal(single.status, 404, 'read alone it is a missing event');
  }
});
