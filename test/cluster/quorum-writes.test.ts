/**
 * The quorum gate over a real engine (daemon/cluster/quorum-writes.ts): a write is answered only
 * once a follower's report brings a majority of three to its durable end; one no majority confirms
 * in time is refused with SVCDB_ERR_CLUSTER_NO_QUORUM (503, Retry-After 1) though it is in the log,
 * and its retry with the same event id is answered; a fenced leader, or one with no live follower,
 * refuses before writing anything; the engine's own refusals pass through; reads pass through.
 */
import t, { type Test } from 'tap';
import { QuorumTracker } from '../../src/daemon/cluster/quorum-tracker.js';
import { quorumWrites } from '../../src/daemon/cluster/quorum-writes.js';
import type { Engine } from '../../src/storage/engine.js';
import { ExpectedVersion } from '../../src/storage/streams/stream-metadata.js';
import { newEvent, openEngine, tempDirectory } from '../helpers/engine.js';

const NO_QUORUM = 'SVCDB_ERR_CLUSTER_NO_QUORUM';

/** A gated engine in a cluster of three; `waits` resolves with each position a write waits for. */
async function gated(t: Test, timeoutMs = 60_000) {
  const engine: Engine = await openEngine(tempDirectory(t));
  const tracker = new QuorumTracker({ clusterSize: 3, selfDurable: () => engine.logBytes().durableEnd });
  t.teardown(() => tracker.close());
  const lease = { valid: true };
  const targets: number[] = [];
  const waiting: Array<(target: number) => void> = [];
  const waitFor = tracker.waitFor.bind(tracker);
  tracker.waitFor = (position, ms) => {
    targets.push(position);
    waiting.shift()?.(position);
    return waitFor(position, ms);
  };
  const storage = quorumWrites(engine, { tracker, mayAcknowledge: () => lease.valid, timeoutMs });
  /** Resolves with the position the next write waits for, once it waits. */
  const nextWait = () => new Promise<number>((resolve) => waiting.push(resolve));
  return { engine, tracker, lease, storage, targets, nextWait };
}

/** Whether `promise` settled once every pending callback ran. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(() => (settled = true), () => (settled = true));
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

t.test('a write is answered once a follower\'s report makes a majority hold it durable', async (t) => {
  const { engine, tracker, storage, nextWait } = await gated(t);
  tracker.report('follower-b', 0);
  const waits = nextWait();
  const write = storage.append('orders', ExpectedVersion.any, [newEvent()]);
  const target = await waits;
  t.equal(target, engine.logBytes().durableEnd, 'the write waits for the durable end after it');
  t.ok(target > 0, 'which is past the write');
  tracker.report('follower-b', target - 1);
  t.notOk(await settledYet(write), 'a report short of it does not answer the write');
  tracker.report('follower-b', target);
  const result = await write;
  t.equal(result.firstEventNumber, 0, 'the report that reaches it answers the engine\'s result');
  t.equal(storage.readStreamForward('orders', 0, 10).events.length, 1, 'reads go to the engine');
});

t.test('a write no majority confirms in time is refused; its retry with the same event id is answered', async (t) => {
  const { engine, tracker, storage, targets } = await gated(t, 20);
  tracker.report('follower-b', 0);
  const event = newEvent();
  const refusal = await storage.append('orders', ExpectedVersion.noStream, [event]).catch((error: unknown) => error);
  t.match(refusal, { code: NO_QUORUM, statusCode: 503, details: { retryAfterSeconds: 1 } }, 'the coded 503 with Retry-After 1');
  t.equal(engine.readStreamForward('orders', 0, 10).events.length, 1, 'the write itself is in the log: it may be committed');

  tracker.report('follower-b', targets[0]);
  const retry = await storage.append('orders', ExpectedVersion.noStream, [event]);
  t.equal(retry.idempotent, true, 'the retry is the same write, answered idempotently');
  t.equal(targets[1], targets[0], 'and it waits for the durable end that covers the first attempt');
});

t.test('a fenced leader, or one without a live follower, refuses before writing anything', async (t) => {
  const { engine, tracker, lease, storage, targets } = await gated(t);
  const end = engine.logBytes().durableEnd;
  const noFollower = await storage.append('orders', ExpectedVersion.any, [newEvent()]).catch((error: unknown) => error);
  t.match(noFollower, { code: NO_QUORUM, message: /only 1 node\(s\)/ }, 'no follower reported: refused');
  tracker.report('follower-b', end);
  lease.valid = false;
  for (const write of [
    () => storage.append('orders', ExpectedVersion.any, [newEvent()]),
    () => storage.deleteStream('orders', ExpectedVersion.any, false),
    () => storage.setStreamMetadata('orders', ExpectedVersion.any, { $maxCount: 1 }),
  ]) {
    t.match(await write().catch((error: unknown) => error), { code: NO_QUORUM, message: /lease may have lapsed/ }, 'the lease may have lapsed: refused');
  }
  t.equal(engine.logBytes().durableEnd, end, 'the log did not move');
  t.equal(engine.readStreamForward('orders', 0, 10).events.length, 0, 'nothing was written');
  t.same(targets, [], 'and nothing waited');
});

t.test('a lease that lapses while the write waits: refused after the majority came', async (t) => {
  const { tracker, lease, storage, nextWait } = await gated(t);
  tracker.report('follower-b', 0);
  const waits = nextWait();
  const write = storage.append('orders', ExpectedVersion.any, [newEvent()]).catch((error: unknown) => error);
  const target = await waits;
  lease.valid = false;
  tracker.report('follower-b', target);
  t.match(await write, { code: NO_QUORUM, message: /lapsed while the write waited/ });
});

t.test('the engine\'s refusals pass through untouched', async (t) => {
  const { engine, tracker, storage, targets } = await gated(t);
  tracker.report('follower-b', 0);
  const refusal = await storage.append('orders', 5, [newEvent()]).catch((error: unknown) => error);
  t.match(refusal, { code: 'SVCDB_ERR_STREAM_WRONG_EXPECTED_VERSION' });
  t.same(targets, [], 'a refused write waits for no majority');
  t.equal(storage.logBytes().durableEnd, engine.logBytes().durableEnd, 'other methods are the engine\'s');
  t.equal(storage.getStreamMetadata('orders').metastreamVersion, -1);
});
