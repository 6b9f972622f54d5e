// Checkpoints: written to the group's checkpoint stream (`SubscriptionCheckpoint`, the position
// as a JSON string) when maxCheckPointCount messages were handled, or when
// checkPointAfterMilliseconds passed with minCheckPointCount handled; never past a message
// that is still unacknowledged.
import t, { type Test } from 'tap';
import { startNode, type TestNode } from '../helpers/node.js';
import { setTimeout as delay } from 'node:timers/promises';
import { WAIT_DEADLINE_MS, WaitTimeoutError } from '../helpers/wait.js';
import { ack, appendEvents, checkpointOf, mustCreateGroup, nack, take } from '../helpers/subscriptions.js';

async function clockedNode(t: Test): Promise<TestNode & { advance(ms: number): void }> {
  let nowMs = 5_000_000;
  const node = await startNode(t, { subscriptions: { now: () => nowMs, tickIntervalMs: 0 } });
  return Object.assign(node, {
    advance(ms: number) {
      nowMs += ms;
      node.subscriptions.tick();
    },
  });
}

/** The group's checkpoint once it is `expected` (a write in progress lands); fails past the deadline. */
async function checkpointSettled(node: TestNode, expected: number): Promise<number | undefined> {
  const deadline = Date.now() + WAIT_DEADLINE_MS;
  let value = await checkpointOf(node.url, 's', 'g');
  while (value !== expected) {
    if (Date.now() > deadline) throw new WaitTimeoutError(`checkpoint ${expected} (it is ${value})`, WAIT_DEADLINE_MS);
    await delay(5);
    value = await checkpointOf(node.url, 's', 'g');
  }
  return value;
}

t.test('maxCheckPointCount handled messages force a checkpoint, with no tick', async (t) => {
  const node = await clockedNode(t);
  await mustCreateGroup(node.url, 's', 'g', { maxCheckPointCount: 3, minCheckPointCount: 1, checkPointAfterMilliseconds: 1_000_000 });
  await appendEvents(node.url, 's', 6);
  const taken = await take(node.url, 's', 'g', 6);
  await ack(node.url, 's', 'g', taken.ids.slice(0, 2));
  t.equal(await checkpointOf(node.url, 's', 'g'), undefined, 'two handled: no checkpoint yet');
  await ack(node.url, 's', 'g', taken.ids.slice(2, 3));
  t.equal(await checkpointSettled(node, 2), 2, 'the third forces checkpoint 2');
  await ack(node.url, 's', 'g', taken.ids.slice(3, 5));
  t.equal(await checkpointOf(node.url, 's', 'g'), 2, 'two more: still 2');
});

t.test('after checkPointAfterMilliseconds, a checkpoint once minCheckPointCount were handled', async (t) => {
  const node = await clockedNode(t);
  await mustCreateGroup(node.url, 's', 'g', { maxCheckPointCount: 100, minCheckPointCount: 2, checkPointAfterMilliseconds: 1000 });
  await appendEvents(node.url, 's', 4);
  const taken = await take(node.url, 's', 'g', 4);
  await ack(node.url, 's', 'g', taken.ids.slice(0, 1));
  node.advance(5000);
  t.equal(await checkpointOf(node.url, 's', 'g'), undefined, 'one handled is below minCheckPointCount');
  await ack(node.url, 's', 'g', taken.ids.slice(1, 2));
  node.advance(500);
  t.equal(await checkpointSettled(node, 1), 1, 'two handled, time passed: checkpoint 1');
  await nack(node.url, 's', 'g', taken.ids.slice(2, 4), 'Skip');
  node.advance(999);
  t.equal(await checkpointOf(node.url, 's', 'g'), 1, 'not before checkPointAfterMilliseconds since the last one');
  node.advance(1);
  t.equal(await checkpointSettled(node, 3), 3, 'skipped messages count as handled');
});

t.test('the checkpoint stays below the oldest unacknowledged message', async (t) => {
  const node = await clockedNode(t);
  await mustCreateGroup(node.url, 's', 'g', { maxCheckPointCount: 1, minCheckPointCount: 1 });
  await appendEvents(node.url, 's', 5);
  const taken = await take(node.url, 's', 'g', 5);
  await ack(node.url, 's', 'g', [taken.ids[0], taken.ids[1], taken.ids[3], taken.ids[4]]);
  t.equal(await checkpointSettled(node, 1), 1, 'event 2 is still out: checkpoint 1');
  await ack(node.url, 's', 'g', [taken.ids[2]]);
  t.equal(await checkpointSettled(node, 4), 4, 'acknowledged: checkpoint 4');
});
