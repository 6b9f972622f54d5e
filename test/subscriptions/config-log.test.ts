// What group definitions cost in the log. Regression: every create, update and delete wrote the
// whole set of definitions again, so 2,000 group creations wrote ~800 MB of log. Now each change
// is written alone and the whole set only now and then, so N creations cost O(N) bytes; and a
// config stream written the old way (whole sets under `$maxCount`) still loads and keeps its
// groups once changes are written one by one after it.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { adminFetch } from '../helpers/auth.js';
import { startNode } from '../helpers/node.js';
import { createGroup, groupUrl, restartedService } from '../helpers/subscriptions.js';

const GROUPS = 2000;
/** A change event is ~500 bytes of JSON plus its record; the whole sets add at most about twice that. */
const BYTES_PER_GROUP_MAX = 4096;
const CONCURRENT_REQUESTS = 16;


/** Runs `work(i)` for i in [0, count), a few at a time. */
async function inParallel(count: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: CONCURRENT_REQUESTS }, worker));
}

async function appendTo(url: string, stream: string, eventType: string, data: unknown): Promise<void> {
  const response = await adminFetch(`${url}/streams/${encodeURIComponent(stream)}`, {
    method: 'POST', headers: { 'content-type': 'application/vnd.svc.events+json' },
    body: JSON.stringify([{ eventId: randomUUID(), eventType, data }]),
  });
  if (response.status !== 201) throw new Error(`appending to ${stream}: ${response.status}`);
}

t.test('2,000 group creations cost O(N) bytes of log, and every group comes back after a restart', async (t) => {
  // Chunks large enough for the whole set of 2,000 definitions, as a node's default chunks are.
  const node = await startNode(t, { engine: { chunkSizeBytes: 4 * 1024 * 1024 } });
  const before = node.streams.logEnd;
  await inParallel(GROUPS, async (i) => {
    const response = await createGroup(node.url, `stream-${i % 50}`, `group-${i}`, { maxRetryCount: i % 7 });
    if (response.status !== 201) throw new Error(`creating group-${i}: ${response.status} ${await response.text()}`);
  });
  const bytes = node.streams.logEnd - before;
  t.comment(`${GROUPS} creations wrote ${bytes} bytes of log (${Math.round(bytes / GROUPS)} per group)`);
  t.ok(bytes / GROUPS <= BYTES_PER_GROUP_MAX, `at most ${BYTES_PER_GROUP_MAX} bytes per group (${Math.round(bytes / GROUPS)})`);
  // A few updates and deletes after them, so the restart reads whole sets and changes of each kind.
  const updated = await adminFetch(groupUrl(node.url, 'stream-3', 'group-3'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"maxRetryCount":99}' });
  t.equal(updated.status, 200);
  t.equal((await adminFetch(groupUrl(node.url, 'stream-4', 'group-4'), { method: 'DELETE' })).status, 200);

  // Read as the service reads: the first event not truncated away.
  const [oldest] = node.streams.readForward({ name: 'admin', groups: ['$admins'] }, '$persistentSubscriptionConfig', 0, 1, false).events;
  t.ok(oldest.event.eventNumber > 0, 'the stream was truncated before the last whole set');
  t.ok(Array.isArray((JSON.parse(oldest.event.data.toString('utf8')) as { entries?: unknown }).entries), 'which is where it starts now');

  const restarted = restartedService(t, node);
  const groups = restarted.list();
  t.equal(groups.length, GROUPS - 1, 'every group but the deleted one');
  const byName = new Map(groups.map((group) => [group.definition.group, group]));
  t.equal(byName.get('group-3')?.settings.maxRetryCount, 99, 'the update');
  t.notOk(byName.has('group-4'), 'the delete');
  const wrong = groups.filter((group) => {
    const i = Number(group.definition.group.split('-')[1]);
    return group.definition.stream !== `stream-${i % 50}` || (i !== 3 && group.settings.maxRetryCount !== i % 7);
  });
  t.same(wrong.map((group) => group.definition.group), [], 'each group on its stream with its settings');
});

t.test('a config stream written as whole sets under $maxCount loads, and keeps its groups as changes follow', async (t) => {
  const node = await startNode(t);
  const metadata = await adminFetch(`${node.url}/streams/%24persistentSubscriptionConfig/metadata`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'svc-eventid': randomUUID() }, body: '{"$maxCount":10}',
  });
  t.equal(metadata.status, 201);
  const oldSet = (groups: string[]) => ({
    version: '2', updated: new Date().toISOString(), updatedBy: 'admin', maxCount: 10,
    entries: groups.map((group) => ({ stream: 'old', group, maxRetryCount: 5 })),
  });
  await appendTo(node.url, '$persistentSubscriptionConfig', '$PersistentConfig', oldSet(['a']));
  await appendTo(node.url, '$persistentSubscriptionConfig', '$PersistentConfig', oldSet(['a', 'b']));
  const restarted = restartedService(t, node);
  t.same(restarted.list().map((group) => [group.definition.group, group.settings.maxRetryCount]), [['a', 5], ['b', 5]], 'the last set');
  // More changes than the former $maxCount kept events: the set they follow must not expire.
  const admin = { name: 'admin', groups: ['$admins'] };
  for (let i = 0; i < 15; i++) await restarted.create(admin, 'new', `n${i}`, {});
  await restarted.delete(admin, 'old', 'a');
  const again = restartedService(t, node);
  t.same(again.list().map((group) => group.definition.group).sort(), ['b', ...Array.from({ length: 15 }, (_, i) => `n${i}`)].sort());
});

// Regression: the whole set was one append, refused once it no longer fit in a chunk, so no group
// could be created past ~130 on a node with 64 KiB chunks.
t.test('a set larger than a chunk is not written: changes are, and every group is kept', async (t) => {
  const node = await startNode(t);
  await inParallel(300, async (i) => {
    const response = await createGroup(node.url, 's', `group-${i}`);
    if (response.status !== 201) throw new Error(`creating group-${i}: ${response.status} ${await response.text()}`);
  });
  t.equal(restartedService(t, node).list().length, 300);
});
