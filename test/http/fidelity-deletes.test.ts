/**
 * Deletes as the wire protocol has them: a soft delete sets `$tb` to 9223372036854775807 and the
 * first append after it sets `$tb` to its first event, keeping the other properties; expected
 * version -4 on metadata-only and soft-deleted streams; a hard delete takes the metastream along
 * and shows its tombstone in `$all` as event 9223372036854775807.
 */
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { adminFetch } from '../helpers/auth.js';
import { postEvent, startNode, type TestNode } from '../helpers/node.js';

function append(node: TestNode, stream: string, expectedVersion?: string): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'svc-eventtype': 'T', 'svc-eventid': randomUUID() };
  if (expectedVersion !== undefined) headers['svc-expectedversion'] = expectedVersion;
  return postEvent(`${node.url}/streams/${stream}`, '{"x":1}', headers);
}

function remove(node: TestNode, stream: string, headers: Record<string, string> = {}): Promise<Response> {
  return adminFetch(`${node.url}/streams/${stream}`, { method: 'DELETE', headers });
}

function metadataText(node: TestNode, stream: string): Promise<string> {
  return adminFetch(`${node.url}/streams/${stream}/metadata`, { headers: { accept: 'application/json' } }).then((response) => response.text());
}

async function setMetadata(node: TestNode, stream: string, body: string): Promise<Response> {
  return adminFetch(`${node.url}/streams/${stream}/metadata`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'svc-eventid': randomUUID() } });
}

function metastreamVersion(node: TestNode, stream: string): number {
  return node.engine.getStreamMetadata(stream).metastreamVersion;
}

t.test('soft delete writes $tb 9223372036854775807; the first append after it writes $tb = its first event, other properties kept', async (t) => {
  const node = await startNode(t);
  for (const expected of ['-2', '-1', 'exact']) {
    const stream = `soft${expected}`;
    for (let i = 0; i < 3; i++) await append(node, stream);
    t.equal((await setMetadata(node, stream, '{"$maxAge":3600,"custom":123123123123123123}')).status, 201);
    const deleted = await remove(node, stream);
    t.equal(deleted.status, 204, `${expected}: 204`);
    t.equal(metastreamVersion(node, stream), 1, 'the delete is a metadata event');
    t.equal(await metadataText(node, stream), '{"$maxAge":3600,"custom":123123123123123123,"$tb":9223372036854775807}');
    t.equal((await adminFetch(`${node.url}/streams/${stream}`, { headers: { accept: 'application/json' } })).status, 404, 'reads are 404');
    const revived = await append(node, stream, expected === 'exact' ? '2' : expected);
    t.equal(revived.status, 201, `${expected}: recreated`);
    t.equal(revived.headers.get('location'), `${node.url}/streams/${stream}/3`, 'numbering continues');
    t.equal(metastreamVersion(node, stream), 2, 'the revival is another metadata event');
    t.equal(await metadataText(node, stream), '{"$maxAge":3600,"custom":123123123123123123,"$tb":3}');
    const feed = await (await adminFetch(`${node.url}/streams/${stream}/0/forward/10`, { headers: { accept: 'application/vnd.svc.atom+json' } })).json() as { entries: Array<{ title: string }> };
    t.same(feed.entries.map((entry) => entry.title), [`3@${stream}`], 'only the new event is read');
  }
});

t.test('concurrent appends after a soft delete: one metadata event, every append kept, in order', async (t) => {
  const node = await startNode(t);
  for (let i = 0; i < 2; i++) await append(node, 'busy');
  await remove(node, 'busy');
  const responses = await Promise.all(Array.from({ length: 8 }, () => append(node, 'busy')));
  t.same(responses.map((response) => response.status), Array(8).fill(201));
  t.equal(metastreamVersion(node, 'busy'), 1, 'the delete and exactly one revival');
  t.equal(node.engine.getStreamMetadata('busy').metadata.truncateBefore, 2);
  const page = node.engine.readStreamForward('busy', 0, 20);
  t.same(page.events.map((event) => event.eventNumber), [2, 3, 4, 5, 6, 7, 8, 9]);
});

t.test('a soft delete of a stream that does not exist is 204', async (t) => {
  const node = await startNode(t);
  t.equal((await remove(node, 'never', { 'svc-expectedversion': '-1' })).status, 204, 'expected version -1');
  t.equal((await remove(node, 'never-either')).status, 204, 'expected version any');
  t.equal((await append(node, 'never', '-1')).status, 201, 'and it can be written afterwards');
});

t.test('expected version -4: a stream with only metadata exists; a soft-deleted one is 410', async (t) => {
  const node = await startNode(t);
  await setMetadata(node, 'meta-only', '{"$maxCount":5}');
  const exists = await append(node, 'meta-only', '-4');
  t.equal(exists.status, 201, 'metadata alone makes the stream exist');
  t.equal(exists.headers.get('location'), `${node.url}/streams/meta-only/0`);
  t.equal((await append(node, 'absent', '-4')).status, 400, 'a stream with nothing at all does not');
  await append(node, 'gone');
  await remove(node, 'gone');
  const deleted = await append(node, 'gone', '-4');
  t.equal(deleted.status, 410, 'a soft-deleted stream answers 410');
  t.equal(deleted.statusText, 'Stream deleted');
});

t.test('a hard delete deletes the metastream: $$s and /metadata are 410; $all shows the tombstone as 9223372036854775807', async (t) => {
  const node = await startNode(t);
  await append(node, 'hard');
  await setMetadata(node, 'hard', '{"$maxCount":5}');
  t.equal((await remove(node, 'hard', { 'svc-harddelete': 'true' })).status, 204);
  for (const path of ['/streams/hard/metadata', '/streams/$$hard', '/streams/$$hard/0', '/streams/%24%24hard/0/forward/5']) {
    const response = await adminFetch(`${node.url}${path}`, { headers: { accept: 'application/vnd.svc.atom+json' } });
    t.equal(response.status, 410, `${path}: 410`);
  }
  t.equal((await remove(node, 'never-hard', { 'svc-harddelete': 'true' })).status, 204, 'a hard delete of nothing is 204');
  const all = await (await adminFetch(`${node.url}/streams/$all/head/backward/5?embed=rich`, { headers: { accept: 'application/vnd.svc.atom+json' } })).text();
  t.ok(all.includes('"title":"9223372036854775807@hard"'), 'the tombstone entry is titled with the 64-bit number');
  t.ok(all.includes('"eventNumber":9223372036854775807'), 'its event number is exact');
  t.ok(all.includes('/streams/hard/9223372036854775807"'), 'and so is its URL');
  const [tombstone] = node.engine.readAllBackward(-1, 5).events.filter((event) => event.streamName === 'hard');
  t.equal(tombstone.eventType, '$streamDeleted');
});

t.test('64-bit expected versions and event numbers are accepted at the edge', async (t) => {
  const node = await startNode(t);
  await append(node, 'wide');
  const wrong = await append(node, 'wide', '9223372036854775807');
  t.equal(wrong.status, 400);
  t.equal(wrong.statusText, 'Wrong expected EventNumber');
  t.equal(wrong.headers.get('svc-currentversion'), '0');
  t.equal((await append(node, 'wide', '9223372036854775808')).status, 400, 'beyond 64 bits is a malformed header');
  const read = await adminFetch(`${node.url}/streams/wide/9223372036854775807`, { headers: { accept: 'application/json' } });
  t.equal(read.status, 404, 'an event number past the end is not found, not malformed');
  // Regression: 16-digit numbers above 2^53 - 1 were refused as "not an integer" while longer ones were accepted.
  for (const number of ['9007199254740992', '9007199254740993', '10000000000000000']) {
    const page = await adminFetch(`${node.url}/streams/wide/${number}/backward/2`, { headers: { accept: 'application/vnd.svc.atom+json' } });
    t.equal(page.status, 200, `${number}: an event number, as every int64 is`);
  }
});
