/**
 * Metadata written to a soft-deleted stream undeletes it as the reference does: after the write
 * comes the new metadata again with `$tb` = the stream's last event number + 1, every other
 * property kept. Before, metadata without `$tb` made the soft-deleted events readable again.
 * Metadata that is not a JSON object is stored as it is. The undelete survives a restart.
 */
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { adminFetch } from '../helpers/auth.js';
import { engineOptions, tempDirectory } from '../helpers/engine.js';
import { postEvent, startNode, type TestNode } from '../helpers/node.js';

const FEED = 'application/vnd.svc.atom+json';

async function append(node: TestNode, stream: string): Promise<void> {
  const response = await postEvent(`${node.url}/streams/${stream}`, '{"x":1}', { 'content-type': 'application/json', 'svc-eventtype': 'T', 'svc-eventid': randomUUID() });
  if (response.status !== 201) throw new Error(`append to ${stream}: ${response.status}`);
}

async function softDelete(node: TestNode, stream: string): Promise<void> {
  const response = await adminFetch(`${node.url}/streams/${stream}`, { method: 'DELETE' });
  if (response.status !== 204) throw new Error(`delete of ${stream}: ${response.status}`);
}

function setMetadata(node: TestNode, stream: string, body: string): Promise<Response> {
  return adminFetch(`${node.url}/streams/${stream}/metadata`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'svc-eventid': randomUUID() } });
}

/** The metadata stream's events, oldest first, as their stored text. */
async function metadataEvents(node: TestNode, stream: string): Promise<string[]> {
  const response = await adminFetch(`${node.url}/streams/${stream}/metadata/0/forward/20?embed=rich`, { headers: { accept: FEED } });
  const feed = await response.json() as { entries: Array<{ eventNumber: number }> };
  const texts: string[] = [];
  for (const { eventNumber } of feed.entries.reverse()) {
    const event = await adminFetch(`${node.url}/streams/${stream}/metadata/${eventNumber}`, { headers: { accept: 'application/octet-stream' } });
    texts.push(await event.text());
  }
  return texts;
}

async function readStream(node: TestNode, stream: string): Promise<{ status: number; titles: string[] }> {
  const response = await adminFetch(`${node.url}/streams/${stream}/0/forward/20`, { headers: { accept: FEED } });
  if (response.status !== 200) return { status: response.status, titles: [] };
  const feed = await response.json() as { entries: Array<{ title: string }> };
  return { status: 200, titles: feed.entries.map((entry) => entry.title) };
}

t.test('a stream with events 0 and 1, soft deleted, then {"$maxCount":100,"$tb":9223372036854775807}: metastream at version 2, $tb 2, 200 with no events', async (t) => {
  const node = await startNode(t);
  await append(node, 's');
  await append(node, 's');
  await softDelete(node, 's');
  const written = await setMetadata(node, 's', '{"$maxCount":100,"$tb":9223372036854775807}');
  t.equal(written.status, 201);
  t.equal(written.headers.get('location'), `${node.url}/streams/%24%24s/1`, 'the client\'s write is event 1');
  t.same(await metadataEvents(node, 's'), [
    '{"$tb":9223372036854775807}',
    '{"$maxCount":100,"$tb":9223372036854775807}',
    '{"$maxCount":100,"$tb":2}',
  ]);
  t.equal(node.engine.getStreamMetadata('s').metastreamVersion, 2);
  const metadata = await adminFetch(`${node.url}/streams/s/metadata`, { headers: { accept: 'application/json' } });
  t.equal(await metadata.text(), '{"$maxCount":100,"$tb":2}');
  t.same(await readStream(node, 's'), { status: 200, titles: [] }, 'the stream is back, without its deleted events');
  await append(node, 's');
  t.same(await readStream(node, 's'), { status: 200, titles: ['2@s'] }, 'a new append is event 2, and the only one read');
  t.equal(node.engine.getStreamMetadata('s').metastreamVersion, 2, 'no further metadata event on that append');
});

t.test('metadata without $tb does not bring back the soft-deleted events; other properties are kept as sent', async (t) => {
  const node = await startNode(t);
  await append(node, 'keep');
  await append(node, 'keep');
  await softDelete(node, 'keep');
  t.equal((await setMetadata(node, 'keep', '{ "$maxCount" : 100, "custom": 123123123123123123 }')).status, 201);
  t.same((await metadataEvents(node, 'keep')).slice(1), [
    '{ "$maxCount" : 100, "custom": 123123123123123123 }',
    '{"$maxCount" : 100,"custom": 123123123123123123,"$tb":2}',
  ]);
  t.same(await readStream(node, 'keep'), { status: 200, titles: [] });
  const event = await adminFetch(`${node.url}/streams/keep/0`, { headers: { accept: 'application/json' } });
  t.equal(event.status, 404, 'a deleted event stays unreadable');
});

t.test('a stream that had no events: $tb 0, and reads stay 404', async (t) => {
  const node = await startNode(t);
  await softDelete(node, 'none');
  t.equal((await setMetadata(node, 'none', '{"$maxCount":5}')).status, 201);
  t.same(await metadataEvents(node, 'none'), ['{"$tb":9223372036854775807}', '{"$maxCount":5}', '{"$maxCount":5,"$tb":0}']);
  t.same(await readStream(node, 'none'), { status: 404, titles: [] });
});

t.test('metadata that is not a JSON object is stored as it is, with no metadata event after it', async (t) => {
  const node = await startNode(t);
  await append(node, 'text');
  await softDelete(node, 'text');
  t.equal((await setMetadata(node, 'text', 'not json at all')).status, 201);
  t.same(await metadataEvents(node, 'text'), ['{"$tb":9223372036854775807}', 'not json at all']);
  t.equal(node.engine.getStreamMetadata('text').metastreamVersion, 1);
});

t.test('a write to $$s itself (an events batch) undeletes too', async (t) => {
  const node = await startNode(t);
  await append(node, 'batch');
  await softDelete(node, 'batch');
  const body = JSON.stringify([{ eventId: randomUUID(), eventType: '$metadata', data: { $maxAge: 60 } }]);
  const response = await adminFetch(`${node.url}/streams/%24%24batch`, { method: 'POST', body, headers: { 'content-type': 'application/vnd.svc.events+json' } });
  t.equal(response.status, 201);
  t.same((await metadataEvents(node, 'batch')).slice(1), ['{"$maxAge":60}', '{"$maxAge":60,"$tb":1}']);
  t.same(await readStream(node, 'batch'), { status: 200, titles: [] });
});

t.test('the undelete survives a restart', async (t) => {
  const directory = tempDirectory(t);
  const engine = engineOptions(directory);
  await t.test('written before', async (t) => {
    const node = await startNode(t, { engine });
    await append(node, 'r');
    await append(node, 'r');
    await softDelete(node, 'r');
    await setMetadata(node, 'r', '{"$maxCount":100}');
    await softDelete(node, 'empty');
    await setMetadata(node, 'empty', '{"$maxCount":100}');
  });
  await t.test('read after', async (t) => {
    const node = await startNode(t, { engine });
    t.equal(await (await adminFetch(`${node.url}/streams/r/metadata`, { headers: { accept: 'application/json' } })).text(), '{"$maxCount":100,"$tb":2}');
    t.same(await readStream(node, 'r'), { status: 200, titles: [] });
    t.same(await readStream(node, 'empty'), { status: 404, titles: [] });
    t.equal(node.engine.getStreamMetadata('r').metastreamVersion, 2);
  });
});
