// Each transition of the reference's persistent subscription table, over HTTP, with the
// subscriptions' clock in the test's hands: ack, timeout → retry, retries exhausted → parked,
// nack Park, Retry, Skip and Stop, replay of parked messages (all, and up to stopAt), and an
// update that resets the group.
import t, { type Test } from 'tap';
import { setTimeout as delay } from 'node:timers/promises';
import { adminFetch } from '../helpers/auth.js';
import { WAIT_DEADLINE_MS, WaitTimeoutError } from '../helpers/wait.js';
import { startNode, type TestNode } from '../helpers/node.js';
import { ack, appendEvents, groupUrl, info, mustCreateGroup, nack, parkedNumbers, post, take } from '../helpers/subscriptions.js';

interface ClockedNode extends TestNode {
  advance(ms: number): void;
}

async function clockedNode(t: Test): Promise<ClockedNode> {
  let nowMs = 1_000_000;
  const node = await startNode(t, { subscriptions: { now: () => nowMs, tickIntervalMs: 0 } });
  return Object.assign(node, {
    advance(ms: number) {
      nowMs += ms;
      node.subscriptions.tick();
    },
  });
}

/** Lets the writes a tick or an ack began (parked copies, checkpoints) finish. */
async function settle(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_DEADLINE_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new WaitTimeoutError(what, WAIT_DEADLINE_MS);
    await delay(5);
  }
}

t.test('acknowledged messages are not delivered again; the next take moves on', async (t) => {
  const node = await clockedNode(t);
  await mustCreateGroup(node.url, 's', 'g', { messageTimeoutMilliseconds: 1000 });
  await appendEvents(node.url, 's', 5);
  const first = await take(node.url, 's', 'g', 3, { consumer: 'a' });
  t.same(first.numbers, [0, 1, 2]);
  t.same(first.entries.map((entry) => entry.retryCount), [0, 0, 0]);
  const acked = await ack(node.url, 's', 'g', first.ids);
  t.equal(acked.status, 202);
  t.equal(await acked.text(), '');
  t.same((await take(node.url, 's', 'g', 10, { consumer: 'a' })).numbers, [3, 4]);
  node.advance(5000);
  const retried = await take(node.url, 's', 'g', 10, { consumer: 'a' });
  t.same(retried.numbers, [3, 4], 'only the unacknowledged messages come back after the timeout');
  t.same(retried.entries.map((entry) => entry.retryCount), [1, 1]);
  t.match(await info(node.url, 's', 'g'), { totalItemsProcessed: 3, totalInFlightMessages: 2 });
});

t.test('a message not acknowledged in time is retried with retryCount + 1, then parked after maxRetryCount', async (t) => {
  const node = await clockedNode(t);
  await mustCreateGroup(node.url, 's', 'g', { messageTimeoutMilliseconds: 1000, maxRetryCount: 2 });
  await appendEvents(node.url, 's', 1);
  for (const retryCount of [0, 1, 2]) {
    const taken = await take(node.url, 's', 'g', 1, { consumer: 'a' });
    t.same(taken.numbers, [0]);
    t.equal(taken.entries[0].retryCount, retryCount, `delivery ${retryCount + 1}`);
    node.advance(999);
    t.same((await take(node.url, 's', 'g', 1, { consumer: 'a' })).numbers, [], 'not before its timeout');
    node.advance(1);
  }
  await settle(async () => (await parkedNumbers(node.url, 's', 'g')).length === 1, 'the parked copy');
  t.same(await parkedNumbers(node.url, 's', 'g'), [0], 'parked after its third timeout');
  t.same((await take(node.url, 's', 'g', 1, { consumer: 'a' })).numbers, [], 'a parked message is not delivered');
  t.match(await info(node.url, 's', 'g'), { parkedMessageCount: 1, totalInFlightMessages: 0 });
});

t.test('nack with Park parks at once; Retry delivers again; Skip drops; Stop drops the consumer', async (t) => {
  const node = await clockedNode(t);
  await mustCreateGroup(node.url, 's', 'g', { maxRetryCount: 5 });
  await appendEvents(node.url, 's', 4);
  const taken = await take(node.url, 's', 'g', 4, { consumer: 'a' });
  const [parkId, retryId, skipId, stopId] = taken.ids;
  t.equal((await nack(node.url, 's', 'g', [parkId], 'Park')).status, 202);
  t.equal((await nack(node.url, 's', 'g', [retryId], 'retry')).status, 202);
  t.equal((await nack(node.url, 's', 'g', [skipId], 'Skip')).status, 202);
  t.equal((await nack(node.url, 's', 'g', [stopId], 'Stop', 'a')).status, 202);
  await settle(async () => (await parkedNumbers(node.url, 's', 'g')).length === 1, 'the parked copy');
  t.same(await parkedNumbers(node.url, 's', 'g'), [0], 'Park: the message is in the parked stream');
  t.equal((await info(node.url, 's', 'g') as { connections: unknown[] }).connections.length, 0, 'Stop: the consumer left the group');
  const again = await take(node.url, 's', 'g', 10, { consumer: 'b' });
  t.same(again.numbers, [1, 3], 'Retry and Stop: delivered again; Skip: not');
  t.same(again.entries.map((entry) => entry.retryCount), [1, 1]);
  const single = await post(`${groupUrl(node.url, 's', 'g')}/nack/${again.ids[0]}?action=Retyr`);
  t.equal(single.status, 202, 'the reference\'s Retyr spelling on the single-message path');
  await ack(node.url, 's', 'g', [again.ids[1]]);
  const third = await take(node.url, 's', 'g', 10, { consumer: 'b' });
  t.same(third.numbers, [1]);
  t.equal(third.entries[0].retryCount, 2);
  const unknown = await post(`${groupUrl(node.url, 's', 'g')}/nack?ids=${third.ids[0]}&action=Later`);
  t.equal(unknown.status, 202, 'an unknown action is Retry, as the reference has it');
  t.equal((await take(node.url, 's', 'g', 10, { consumer: 'b' })).entries[0].retryCount, 3);
});

t.test('a nack Retry past maxRetryCount parks the message', async (t) => {
  const node = await clockedNode(t);
  await mustCreateGroup(node.url, 's', 'g', { maxRetryCount: 1 });
  await appendEvents(node.url, 's', 1);
  for (let i = 0; i < 2; i++) {
    const taken = await take(node.url, 's', 'g', 1, { consumer: 'a' });
    t.same(taken.numbers, [0]);
    await nack(node.url, 's', 'g', taken.ids, 'Retry');
  }
  await settle(async () => (await parkedNumbers(node.url, 's', 'g')).length === 1, 'the parked copy');
  t.same((await take(node.url, 's', 'g', 1, { consumer: 'a' })).numbers, []);
});

t.test('replayParked delivers the parked messages again, all or up to stopAt, and they leave the parked stream once handled', async (t) => {
  const node = await clockedNode(t);
  await mustCreateGroup(node.url, 's', 'g');
  await appendEvents(node.url, 's', 4);
  const taken = await take(node.url, 's', 'g', 4, { consumer: 'a' });
  await nack(node.url, 's', 'g', taken.ids, 'Park');
  await settle(async () => (await parkedNumbers(node.url, 's', 'g')).length === 4, 'four parked copies');
  t.same((await take(node.url, 's', 'g', 10, { consumer: 'a' })).numbers, []);
  const replay = await adminFetch(`${groupUrl(node.url, 's', 'g')}/replayParked?stopAt=2`, { method: 'POST' });
  t.equal(replay.status, 200);
  const replayed = await take(node.url, 's', 'g', 10, { consumer: 'a' });
  t.same(replayed.numbers, [0, 1], 'stopAt=2: the first two parked messages');
  t.same(replayed.entries.map((entry) => entry.retryCount), [0, 0]);
  t.match(await info(node.url, 's', 'g'), { status: 'ReplayingParkedMessages' });
  await ack(node.url, 's', 'g', replayed.ids);
  await settle(async () => (await parkedNumbers(node.url, 's', 'g')).length === 2, 'the replayed messages to leave the parked stream');
  t.same(await parkedNumbers(node.url, 's', 'g'), [2, 3]);
  t.equal((await adminFetch(`${groupUrl(node.url, 's', 'g')}/replayParked`, { method: 'POST' })).status, 200);
  const rest = await take(node.url, 's', 'g', 10, { consumer: 'a' });
  t.same(rest.numbers, [2, 3]);
  await ack(node.url, 's', 'g', rest.ids);
  await settle(async () => (await parkedNumbers(node.url, 's', 'g')).length === 0, 'an empty parked stream');
  t.match(await info(node.url, 's', 'g'), { parkedMessageCount: 0, status: 'Live' });
  const bad = await adminFetch(`${groupUrl(node.url, 's', 'g')}/replayParked?stopAt=-1`, { method: 'POST' });
  t.equal(bad.status, 400);
  t.equal((await bad.json() as { code: string }).code, 'SVCDB_ERR_SUBSCRIPTION_PARAMETER_INVALID');
  const missing = await adminFetch(`${groupUrl(node.url, 's', 'nope')}/replayParked`, { method: 'POST' });
  t.equal(missing.status, 404);
});

t.test('viewparkedmessages pages the parked stream', async (t) => {
  const node = await clockedNode(t);
  await mustCreateGroup(node.url, 's', 'g');
  await appendEvents(node.url, 's', 3);
  const taken = await take(node.url, 's', 'g', 3, { consumer: 'a' });
  await nack(node.url, 's', 'g', taken.ids, 'Park');
  await settle(async () => (await parkedNumbers(node.url, 's', 'g')).length === 3, 'three parked copies');
  const page = await adminFetch(`${node.url}/subscriptions/viewparkedmessages/s/g/0/forward/2`, { headers: { accept: 'application/vnd.svc.atom+json' } });
  t.equal(page.status, 200);
  const feed = await page.json() as { entries: Array<{ title: string }> };
  t.same(feed.entries.map((entry) => entry.title), ['1@s', '0@s'], 'the parked links resolved to their events');
});

t.test('an update resets the group: messages checked out are released and delivered again', async (t) => {
  const node = await clockedNode(t);
  await mustCreateGroup(node.url, 's', 'g', { messageTimeoutMilliseconds: 60_000 });
  await appendEvents(node.url, 's', 4);
  const taken = await take(node.url, 's', 'g', 2, { consumer: 'a' });
  await ack(node.url, 's', 'g', [taken.ids[0]]);
  t.same((await take(node.url, 's', 'g', 10, { consumer: 'b' })).numbers, [2, 3]);
  const update = await adminFetch(groupUrl(node.url, 's', 'g'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"maxRetryCount":3}' });
  t.equal(update.status, 200);
  t.match(await info(node.url, 's', 'g'), { connections: [], totalInFlightMessages: 0 }, 'the consumers were dropped');
  const again = await take(node.url, 's', 'g', 10, { consumer: 'c' });
  t.same(again.numbers, [1, 2, 3], 'everything not acknowledged comes again, without waiting for a timeout');
});
