// Restarts of a real `svcdb serve` with messages in flight and parked: after a clean stop
// (SIGTERM) the group resumes where its consumers left it; after SIGKILL it resumes from its
// last durable checkpoint. Either way nothing acknowledged before that checkpoint is delivered
// again, and nothing unacknowledged is lost. Which messages are acked, parked or left in flight
// comes from the printed seed.
import t, { type Test } from 'tap';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../helpers/cli.js';
import { tempDirectory } from '../helpers/engine.js';
import { testRandom } from '../helpers/random.js';
import { withDeadline } from '../helpers/wait.js';
import {
  ack, appendEvents, checkpointOf, info, mustCreateGroup, nack, parkedNumbers, take,
} from '../helpers/subscriptions.js';

const EVENTS = 60;

/** Every message the group hands out until it has none, acknowledging each; their event numbers. */
async function drain(server: RunningServer): Promise<number[]> {
  const delivered: number[] = [];
  for (;;) {
    const taken = await take(server.url, 's', 'g', 100, { consumer: 'after' });
    if (taken.numbers.length === 0) return delivered;
    delivered.push(...taken.numbers);
    await ack(server.url, 's', 'g', taken.ids);
  }
}

interface Outcome {
  acked: Set<number>;
  parked: Set<number>;
}

/** Takes every message, acks and parks a seeded share of them, leaves the rest in flight. */
async function consumeSome(t: Test, server: RunningServer): Promise<Outcome> {
  const random = testRandom(t);
  const taken = await take(server.url, 's', 'g', 100, { consumer: 'before' });
  t.equal(taken.numbers.length, EVENTS);
  const acked = new Set<number>();
  const parked = new Set<number>();
  const ackIds: string[] = [];
  const parkIds: string[] = [];
  taken.numbers.forEach((eventNumber, index) => {
    const roll = random.integer(0, 9);
    // The first third mostly acknowledged, so the checkpoint moves; the rest mixed.
    if (roll < (eventNumber < EVENTS / 3 ? 9 : 4)) {
      acked.add(eventNumber);
      ackIds.push(taken.ids[index]);
    } else if (roll < 6) {
      parked.add(eventNumber);
      parkIds.push(taken.ids[index]);
    }
  });
  await ack(server.url, 's', 'g', ackIds);
  if (parkIds.length > 0) await nack(server.url, 's', 'g', parkIds, 'Park');
  // The parked copies are durable once the group says so.
  await withDeadline((async () => {
    while ((await info(server.url, 's', 'g')).parkedMessageCount !== parked.size) await new Promise((resolve) => setTimeout(resolve, 10));
  })(), 'the parked copies');
  return { acked, parked };
}

/**
 * The group's durable checkpoint; -1 (its start) when none was written, as when event 0 was never
 * handled: a checkpoint that has not moved is not written.
 */
async function handledUpTo(server: RunningServer): Promise<number> {
  return (await checkpointOf(server.url, 's', 'g')) ?? -1;
}

function lowestMissing(handled: Set<number>): number {
  let eventNumber = 0;
  while (handled.has(eventNumber)) eventNumber++;
  return eventNumber;
}

t.test('a clean stop writes the checkpoint: after the restart only what was not handled comes', async (t) => {
  const dbPath = join(tempDirectory(t), 'db');
  const settings = { messageTimeoutMilliseconds: 60_000, checkPointAfterMilliseconds: 60_000, minCheckPointCount: 1000, maxCheckPointCount: 1000 };
  let server = await startServer(t, { dbPath });
  await mustCreateGroup(server.url, 's', 'g', settings);
  await appendEvents(server.url, 's', EVENTS);
  const { acked, parked } = await consumeSome(t, server);
  t.equal(await checkpointOf(server.url, 's', 'g'), undefined, 'no checkpoint while the node runs (thresholds not reached)');
  const stopped = await server.process.stop('SIGTERM');
  t.equal(stopped.code, 0, 'a clean stop');
  server = await startServer(t, { dbPath });
  const checkpoint = await handledUpTo(server);
  t.equal(checkpoint, lowestMissing(new Set([...acked, ...parked])) - 1, 'the stop wrote the checkpoint below the first message not handled');
  const delivered = await drain(server);
  const expected = Array.from({ length: EVENTS }, (_, n) => n).filter((n) => n > checkpoint);
  t.same(delivered, expected, 'everything after the checkpoint, once');
  for (const n of Array.from({ length: EVENTS }, (_, i) => i)) {
    if (!acked.has(n) && !parked.has(n)) t.ok(delivered.includes(n), `unacknowledged ${n} was delivered again`);
  }
  t.same(await parkedNumbers(server.url, 's', 'g'), [...parked].sort((a, b) => a - b), 'the parked messages are still parked');
  await server.process.stop('SIGTERM');
});

t.test('SIGKILL: the group resumes from its last durable checkpoint, losing nothing unacknowledged', async (t) => {
  const dbPath = join(tempDirectory(t), 'db');
  const settings = { messageTimeoutMilliseconds: 60_000, checkPointAfterMilliseconds: 20, minCheckPointCount: 1, maxCheckPointCount: 1000 };
  let server = await startServer(t, { dbPath });
  await mustCreateGroup(server.url, 's', 'g', settings);
  await appendEvents(server.url, 's', EVENTS);
  const { acked, parked } = await consumeSome(t, server);
  const expectedCheckpoint = lowestMissing(new Set([...acked, ...parked])) - 1;
  await withDeadline((async () => {
    while (await handledUpTo(server) !== expectedCheckpoint) await new Promise((resolve) => setTimeout(resolve, 10));
  })(), `the timed checkpoint ${expectedCheckpoint}`);
  const exit = await server.process.stop('SIGKILL');
  t.equal(exit.signal, 'SIGKILL');
  server = await startServer(t, { dbPath });
  const checkpoint = await handledUpTo(server);
  t.equal(checkpoint, expectedCheckpoint, 'the checkpoint written before the kill');
  const delivered = await drain(server);
  t.ok(delivered.every((n) => n > checkpoint), 'nothing at or before the checkpoint comes again');
  t.same(delivered, [...new Set(delivered)], 'each message once');
  for (let n = 0; n < EVENTS; n++) {
    if (!acked.has(n) && !parked.has(n)) t.ok(delivered.includes(n), `unacknowledged ${n} was delivered again`);
  }
  t.same(await parkedNumbers(server.url, 's', 'g'), [...parked].sort((a, b) => a - b), 'the parked messages are still parked');
  t.equal((await take(server.url, 's', 'g', 1)).numbers.length, 0);
  await server.process.stop('SIGTERM');
});
