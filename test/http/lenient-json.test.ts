/**
 * JSON as the reference's lenient reader accepts it: `{a : "1"}` (unquoted names) and single-quoted
 * strings posted as `application/json`, as a batch, or as event data in a batch, are JSON
 * (`isJson` true) and stored as sent. Replies that embed them in a JSON document embed the strict
 * equivalent, so every reply is JSON to a strict parser. Text even the lenient reader refuses
 * stays raw bytes, not JSON. Before, such bodies were flagged JSON unchecked and came back as
 * strings, so clients' strict parsers failed on them.
 */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { adminFetch } from '../helpers/auth.js';
import { postEvent, startNode } from '../helpers/node.js';

const node = await startNode(t);
const FEED = 'application/vnd.svc.atom+json';

async function postJson(stream: string, body: string): Promise<void> {
  const response = await postEvent(`${node.url}/streams/${stream}`, body, { 'content-type': 'application/json', 'svc-eventtype': 'Lenient', 'svc-eventid': randomUUID() });
  t.equal(response.status, 201, `${body} is appended`);
}

async function text(path: string, accept: string): Promise<string> {
  const response = await adminFetch(`${node.url}${path}`, { headers: { accept } });
  t.equal(response.status, 200, `GET ${path} as ${accept}`);
  return response.text();
}

type Entry = Record<string, unknown> & { content?: { data: unknown } };

async function entry(path: string, embed: string): Promise<Entry> {
  const feed = JSON.parse(await text(`${path}?embed=${embed}`, FEED)) as { entries: Entry[] };
  return feed.entries[0];
}

t.test('{a : "1"} posted as application/json: isJson true, stored as sent, strict JSON in every JSON reply', async (t) => {
  await postJson('unquoted', '{a : "1"}');
  t.equal(await text('/streams/unquoted/0', 'application/octet-stream'), '{a : "1"}', 'stored as sent');
  t.equal(await text('/streams/unquoted/0', 'application/json'), '{"a":"1"}', 'application/json: an object a strict parser reads');
  t.same(JSON.parse(await text('/streams/unquoted/0', 'application/vnd.svc.event+json')), {
    eventStreamId: 'unquoted', eventNumber: 0, eventType: 'Lenient', eventId: node.engine.readEvent('unquoted', 0).event!.eventId, data: { a: '1' }, metadata: '',
  }, 'event+json embeds the strict equivalent');
  const body = await entry('/streams/unquoted', 'body');
  t.equal(body.isJson, true);
  t.equal(body.data, '{"a":"1"}', 'body: the strict text');
  t.same(JSON.parse(body.data as string), { a: '1' });
  t.equal((await entry('/streams/unquoted', 'pretty')).data, '{\n  "a": "1"\n}', 'pretty: the strict text re-indented');
  t.same((await entry('/streams/unquoted', 'content')).content?.data, { a: '1' }, 'content: the value');
  t.match(await text('/streams/unquoted/0', 'application/xml'), '<data><a>1</a></data>', 'XML: the value');
});

t.test('single-quoted strings are JSON too', async (t) => {
  await postJson('quoted', "{'a':'1', 'b': [1, 'x']}");
  t.equal(await text('/streams/quoted/0', 'application/json'), '{"a":"1","b":[1,"x"]}');
  t.equal((await entry('/streams/quoted', 'body')).isJson, true);
});

t.test('text even the lenient reader refuses stays raw bytes, not JSON', async (t) => {
  await postJson('refused', '0@not json');
  t.equal(await text('/streams/refused/0', 'application/octet-stream'), '0@not json');
  t.equal(await text('/streams/refused/0', 'application/json'), '"0@not json"', 'a JSON string of its text');
  const body = await entry('/streams/refused', 'body');
  t.same([body.isJson, body.data], [false, null]);
});

t.test('a batch: lenient data strings are JSON and stored as sent; a batch document only the lenient reader reads is accepted', async (t) => {
  const strictBatch = JSON.stringify([{ eventId: randomUUID(), eventType: 'B', data: '{a : "1"}', metadata: "{'m': 2}" }]);
  const response = await adminFetch(`${node.url}/streams/batch`, { method: 'POST', body: strictBatch, headers: { 'content-type': 'application/vnd.svc.events+json' } });
  t.equal(response.status, 201);
  t.equal(await text('/streams/batch/0', 'application/octet-stream'), '{a : "1"}', 'the data string stored as sent');
  const body = await entry('/streams/batch', 'body');
  t.same([body.isJson, body.data, body.metaData], [true, '{"a":"1"}', '{"m":2}']);

  const lenientBatch = `[{eventId: '${randomUUID()}', eventType: 'B', data: {a : "1"}}]`;
  const lenient = await adminFetch(`${node.url}/streams/batch`, { method: 'POST', body: lenientBatch, headers: { 'content-type': 'application/vnd.svc.events+json' } });
  t.equal(lenient.status, 201);
  t.equal(await text('/streams/batch/1', 'application/json'), '{"a":"1"}');
  t.equal((await entry('/streams/batch', 'body')).isJson, true);
});

t.test('stream metadata the lenient reader reads takes effect', async (t) => {
  for (let i = 0; i < 3; i++) await postJson('meta', '{"n":1}');
  const response = await adminFetch(`${node.url}/streams/meta/metadata`, { method: 'POST', body: '{$maxCount: 1}', headers: { 'content-type': 'application/json', 'svc-eventid': randomUUID() } });
  t.equal(response.status, 201);
  t.equal(await text('/streams/meta/metadata', 'application/json'), '{"$maxCount":1}');
  const feed = JSON.parse(await text('/streams/meta', FEED)) as { entries: Array<{ title: string }> };
  t.same(feed.entries.map((each) => each.title), ['2@meta'], '$maxCount 1 applies');
});
