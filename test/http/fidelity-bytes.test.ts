/**
 * Client bytes as sent: event data and metadata, and stream metadata, come back byte for byte
 * through every read path, 64-bit numbers exactly; metadata writes as the wire protocol does them.
 */
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { adminFetch } from '../helpers/auth.js';
import { requestBody, startNode, type TestNode } from '../helpers/node.js';

const DATA = '{"n":123123123123123123,  "f":1.0, "s":"\\u00e9"}';
const METADATA = '{ "$r" : "role", "big": 9223372036854775807 }';
const STREAM_METADATA = '{"$maxCount": 9223372036854775807, "$tb": 1,  "custom": 123123123123123123}';

function get(node: TestNode, path: string, accept: string): Promise<Response> {
  return adminFetch(`${node.url}${path}`, { headers: { accept } });
}

async function appendBatch(node: TestNode, stream: string, body: string): Promise<Response> {
  return adminFetch(`${node.url}/streams/${stream}`, { method: 'POST', body, headers: { 'content-type': 'application/vnd.svc.events+json' } });
}

async function setMetadata(node: TestNode, stream: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return adminFetch(`${node.url}/streams/${stream}/metadata`, {
    method: 'POST', body, headers: { 'content-type': 'application/json', 'svc-eventid': randomUUID(), ...headers },
  });
}

t.test('batch data and metadata are stored as sent and read back byte for byte at every embed level and codec', async (t) => {
  const node = await startNode(t);
  const batch = `[{"eventId":"${randomUUID()}","eventType":"Big","data":${DATA},"metadata":${METADATA}}]`;
  t.equal((await appendBatch(node, 'bytes', batch)).status, 201);
  const stored = node.engine.readEvent('bytes', 0).event!;
  t.equal(stored.data.toString(), DATA, 'data stored as sent');
  t.equal(stored.metadata.toString(), METADATA, 'metadata stored as sent');

  const content = await (await get(node, '/streams/bytes/0/forward/1?embed=content', 'application/vnd.svc.atom+json')).text();
  t.ok(content.includes(`"data":${DATA}`), 'embed=content splices the data verbatim');
  t.ok(content.includes(`"metadata":${METADATA}`), 'and the metadata');
  for (const embed of ['body', 'pretty', 'tryharder']) {
    const feed = await (await get(node, `/streams/bytes/0/forward/1?embed=${embed}`, 'application/vnd.svc.atom+json')).json() as { entries: Array<{ data: string; metaData: string }> };
    const [entry] = feed.entries;
    if (embed === 'body') {
      t.equal(entry.data, DATA, 'embed=body: data as stored');
      t.equal(entry.metaData, METADATA, 'embed=body: metaData as stored');
    } else {
      t.ok(entry.data.includes('123123123123123123') && entry.data.includes('1.0'), `embed=${embed}: numbers untouched`);
      t.ok(entry.metaData.includes('"$r": "role"') && entry.metaData.includes('9223372036854775807'), `embed=${embed}: $r stays a string, 64-bit exact`);
    }
  }
  t.equal(await (await get(node, '/streams/bytes/0', 'application/json')).text(), DATA, 'application/json: the data as sent');
  const document = await (await get(node, '/streams/bytes/0', 'application/vnd.svc.event+json')).text();
  t.ok(document.includes(`"data":${DATA}`) && document.includes(`"metadata":${METADATA}`), 'event+json splices both');
  const entry = await (await get(node, '/streams/bytes/0', 'application/vnd.svc.atom+json')).text();
  t.ok(entry.includes(`"data":${DATA}`), 'atom+json entry content splices the data');
  for (const accept of ['application/xml', 'application/vnd.svc.event+xml', 'application/atom+xml']) {
    const xml = await (await get(node, '/streams/bytes/0', accept)).text();
    t.ok(xml.includes('<n>123123123123123123</n>') && xml.includes('<f>1.0</f>'), `${accept}: numbers as written`);
  }
  const all = await (await get(node, '/streams/$all/head/backward/5?embed=body', 'application/vnd.svc.atom+json')).json() as { entries: Array<{ title: string; data: string }> };
  t.equal(all.entries.find((each) => each.title === '0@bytes')?.data, DATA, '$all carries the same bytes');
});

t.test('stream metadata is stored as sent; $maxCount and $tb are exact to 64 bits; reads return the bytes', async (t) => {
  const node = await startNode(t);
  for (let i = 0; i < 3; i++) {
    await adminFetch(`${node.url}/streams/meta`, { method: 'POST', body: `{"i":${i}}`, headers: { 'content-type': 'application/json', 'svc-eventtype': 'T', 'svc-eventid': randomUUID() } });
  }
  t.equal((await setMetadata(node, 'meta', STREAM_METADATA)).status, 201, '9223372036854775807 is accepted');
  t.equal(await (await get(node, '/streams/meta/metadata', 'application/json')).text(), STREAM_METADATA, 'GET metadata: the bytes sent');
  const document = await (await get(node, '/streams/meta/metadata', 'application/vnd.svc.event+json')).text();
  t.ok(document.includes(`"data":${STREAM_METADATA}`), 'event+json of the metadata splices it');
  const feed = await (await get(node, '/streams/meta/0/forward/5', 'application/vnd.svc.atom+json')).json() as { entries: unknown[] };
  t.equal(feed.entries.length, 2, '$tb 1 hides event 0; $maxCount that large hides nothing');
  const all = await (await get(node, '/streams/$all/head/backward/1?embed=body', 'application/vnd.svc.atom+json')).json() as { entries: Array<{ data: string }> };
  t.equal(all.entries[0].data, STREAM_METADATA, '$all shows the metadata event as sent');
  t.equal((await setMetadata(node, 'meta', '{"$tb": 9223372036854775808}')).status, 400, 'beyond 64 bits is refused');
});

t.test('metadata writes: not JSON is stored raw (not JSON), empty is empty metadata, stream checks come first', async (t) => {
  const node = await startNode(t);
  await adminFetch(`${node.url}/streams/raw`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', 'svc-eventtype': 'T', 'svc-eventid': randomUUID() } });
  const notJson = await setMetadata(node, 'raw', 'not { json');
  t.equal(notJson.status, 201, 'a body that is not JSON is stored');
  const [stored] = node.engine.readStreamForward('$$raw', 0, 1).events;
  t.equal(stored.data.toString(), 'not { json');
  const rich = await (await get(node, '/streams/$$raw/0?embed=rich', 'application/vnd.svc.atom+json')).json() as { isJson: boolean };
  t.equal(rich.isJson, false, 'flagged not JSON');
  t.same(node.engine.getStreamMetadata('raw').metadata, { text: '' }, 'structured metadata is empty');
  t.equal((await get(node, '/streams/raw', 'application/vnd.svc.atom+json')).status, 200, 'reads are not disturbed');
  t.equal((await setMetadata(node, 'raw', '')).status, 201, 'an empty body is accepted');
  t.same(node.engine.getStreamMetadata('raw').metadata, { text: '' }, 'and is empty metadata');

  const wrong = await setMetadata(node, 'raw', '{"$maxCount": "not a number"}', { 'svc-expectedversion': '7' });
  t.equal(wrong.status, 400);
  t.equal(wrong.statusText, 'Wrong expected EventNumber', 'the expected version is checked before the body');
  t.equal(wrong.headers.get('svc-currentversion'), '1');
  await adminFetch(`${node.url}/streams/raw`, { method: 'DELETE', headers: { 'svc-harddelete': 'true' } });
  t.equal((await setMetadata(node, 'raw', '{"$maxCount": "not a number"}')).status, 410, 'a hard-deleted stream is 410 whatever the body');
});

t.test('embed=tryharder carries the text of non-JSON data and metadata (binary that is not UTF-8 is left out); body and pretty carry null', async (t) => {
  const node = await startNode(t);
  const post = (body: string | Buffer, type: string) => adminFetch(`${node.url}/streams/text`, {
    method: 'POST', body: requestBody(body), headers: { 'content-type': type, 'svc-eventtype': 'T', 'svc-eventid': randomUUID() },
  });
  await post('plain text é', 'application/octet-stream');
  await post('{"looks":"like json"}', 'application/octet-stream');
  await post(Buffer.from([0xff, 0xfe, 0x00, 0x80]), 'application/octet-stream');
  const batch = `[{"eventId":"${randomUUID()}","eventType":"T","data":"text data","metadata":"text metadata"}]`;
  await appendBatch(node, 'text', batch);
  for (const embed of ['body', 'pretty']) {
    const feed = await (await get(node, `/streams/text/0/forward/4?embed=${embed}`, 'application/vnd.svc.atom+json')).json() as { entries: Array<Record<string, unknown>> };
    for (const entry of feed.entries) {
      t.same([entry.data, entry.metaData, entry.isJson], [null, null, false], `${embed}: ${String(entry.title)} has data and metaData null`);
    }
  }
  const feed = await (await get(node, '/streams/text/0/forward/4?embed=tryharder', 'application/vnd.svc.atom+json')).json() as { entries: Array<Record<string, unknown>> };
  // Entries are newest first.
  const [withMetadata, binary, looking, text] = feed.entries;
  t.equal(text.data, 'plain text é', 'text data');
  t.equal(text.isJson, false);
  t.notOk('data' in binary, 'binary data is left out');
  t.equal(withMetadata.data, 'text data', 'text from a batch');
  t.equal(withMetadata.metaData, 'text metadata', 'text metadata');
  t.equal(looking.isJson, true, 'tryharder reads JSON-looking text as JSON');
  t.match(looking.data, /"looks": "like json"/);
});
