/**
 * The leader's count of its followers' durable positions (daemon/cluster/quorum-tracker.ts): the
 * position a majority holds for clusters of 1, 3 and 5, the latest report of a node counting even
 * when lower, followers gone silent no longer live, and writes waiting for a position released by
 * the report that brings it, by their timeout, or when the tracker closes.
 */
import t from 'tap';
import { QuorumTracker } from '../../src/daemon/cluster/quorum-tracker.js';

function trackerOf(clusterSize: number, self = 100, clock?: () => number) {
  const leader = { durable: self };
  const tracker = new QuorumTracker({ clusterSize, selfDurable: () => leader.durable, ...(clock && { clock }), staleAfterMs: 3000 });
  t.teardown(() => tracker.close());
  return { tracker, leader };
}

t.test('a majority of the cluster, the leader counted as one node', async (t) => {
  const one = trackerOf(1);
  t.equal(one.tracker.majority, 1);
  t.equal(one.tracker.quorumPosition(), 100, 'a cluster of one: the leader alone is the majority');

  const three = trackerOf(3);
  t.equal(three.tracker.majority, 2);
  t.equal(three.tracker.quorumPosition(), -1, 'three nodes, no report: no majority');
  three.tracker.report('b', 40);
  t.equal(three.tracker.quorumPosition(), 40, 'the leader at 100 and one follower at 40: 40');
  three.tracker.report('c', 70);
  t.equal(three.tracker.quorumPosition(), 70, 'the second highest of 100, 40, 70');
  three.tracker.report('c', 150);
  t.equal(three.tracker.quorumPosition(), 100, 'a follower ahead of the leader\'s durable end: the leader\'s end');

  const five = trackerOf(5);
  t.equal(five.tracker.majority, 3);
  five.tracker.report('b', 90);
  t.equal(five.tracker.quorumPosition(), -1, 'five nodes, two known: no majority');
  five.tracker.report('c', 10);
  five.tracker.report('d', 50);
  t.equal(five.tracker.quorumPosition(), 50, 'the third highest of 100, 90, 10, 50');
  five.tracker.report('e', 95);
  t.equal(five.tracker.quorumPosition(), 90, 'the third highest of 100, 90, 10, 50, 95');
  five.tracker.forget('e');
  five.tracker.forget('b');
  t.equal(five.tracker.quorumPosition(), 10, 'members that left count no more');
  t.throws(() => new QuorumTracker({ clusterSize: 0, selfDurable: () => 0 }), TypeError, 'a cluster of no nodes is a programmer\'s mistake');
});

t.test('a lower report replaces a higher one: it is the truth about the follower\'s disk', async (t) => {
  const { tracker } = trackerOf(3);
  tracker.report('b', 90);
  t.equal(tracker.quorumPosition(), 90);
  tracker.report('b', 30);
  t.equal(tracker.quorumPosition(), 30, 'a follower that cut its log back holds only what it says now');
});

t.test('followers silent past the stale limit are not live', async (t) => {
  let now = 0;
  const { tracker } = trackerOf(5, 100, () => now);
  tracker.report('b', 10);
  now = 1000;
  tracker.report('c', 20);
  t.equal(tracker.liveFollowers(), 2, 'both reported within 3 s');
  now = 3000;
  t.equal(tracker.liveFollowers(), 1, 'b is 3 s silent');
  now = 3999;
  t.equal(tracker.liveFollowers(), 1, 'c is not yet');
  now = 4000;
  t.equal(tracker.liveFollowers(), 0, 'then neither is live');
  tracker.report('b', 10);
  t.equal(tracker.liveFollowers(), 1, 'a new report makes it live again');
});

t.test('waiters: released by the report that brings their position, in any order, or false at the timeout', async (t) => {
  const { tracker, leader } = trackerOf(3);
  t.equal(await tracker.waitFor(100, 0), false, 'no follower reported: not reached');
  tracker.report('b', 50);
  t.equal(await tracker.waitFor(50, 60_000), true, 'a position a majority holds already: true at once');

  const settled: number[] = [];
  const waits = [90, 60, 100, 60].map((position) => tracker.waitFor(position, 60_000).then((reached) => {
    settled.push(position);
    return reached;
  }));
  tracker.report('c', 59);
  await new Promise((resolve) => setImmediate(resolve));
  t.same(settled, [], 'a report below every waiter releases none');
  tracker.report('c', 90);
  t.same((await Promise.all(waits.filter((_, index) => index !== 2))), [true, true, true], 'a report at 90 releases the waiters at 60, 60 and 90');
  t.same(settled.sort((a, b) => a - b), [60, 60, 90]);

  leader.durable = 120;
  tracker.report('b', 120);
  t.equal(await waits[2], true, 'the waiter at 100 once the leader and a follower are past it');

  t.equal(await tracker.waitFor(500, 10), false, 'a position no majority reaches: false at the timeout');
});

t.test('closing releases every waiter with false and takes no more reports', async (t) => {
  const { tracker } = trackerOf(3);
  const waiting = [tracker.waitFor(10, 60_000), tracker.waitFor(20, 60_000)];
  tracker.close();
  t.same(await Promise.all(waiting), [false, false]);
  tracker.report('b', 100);
  t.equal(await tracker.waitFor(10, 60_000), false, 'a closed tracker waits for nothing');
});
