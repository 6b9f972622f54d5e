// Consumer strategies with several consumers: round robin shares the messages, DispatchToSingle
// gives them all to one consumer until it leaves, Pinned and PinnedByCorrelation keep each
// stream (or correlation id) with one consumer; maxSubscriberCount refuses one consumer too many.
import t, { type Test } from 'tap';
import { startNode } from '../helpers/node.js';
import { ack, appendEvents, mustCreateGroup, nack, take, takeResponse } from '../helpers/subscriptions.js';

const CONSUMERS = ['c1', 'c2', 'c3'];

t.test('RoundRobin: consumers asking in turn get a fair share, each message once', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 's', 'g');
  await appendEvents(node.url, 's', 90);
  const received = new Map<string, number[]>(CONSUMERS.map((consumer) => [consumer, []]));
  for (let round = 0; round < 10; round++) {
    for (const consumer of CONSUMERS) {
      const taken = await take(node.url, 's', 'g', 3, { consumer });
      received.get(consumer)!.push(...taken.numbers);
      await ack(node.url, 's', 'g', taken.ids);
    }
  }
  for (const consumer of CONSUMERS) t.equal(received.get(consumer)!.length, 30, `${consumer} got a third`);
  const all = [...received.values()].flat().sort((a, b) => a - b);
  t.same(all, Array.from({ length: 90 }, (_, n) => n), 'every message once');
});

t.test('DispatchToSingle: the first consumer gets everything until it leaves', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 's', 'g', { namedConsumerStrategy: 'DispatchToSingle' });
  await take(node.url, 's', 'g', 1, { consumer: 'first' });
  await take(node.url, 's', 'g', 1, { consumer: 'second' });
  await appendEvents(node.url, 's', 6);
  t.same((await take(node.url, 's', 'g', 2, { consumer: 'second' })).numbers, [], 'the second gets nothing');
  const first = await take(node.url, 's', 'g', 2, { consumer: 'first' });
  t.same(first.numbers, [0, 1]);
  await nack(node.url, 's', 'g', first.ids, 'Stop', 'first');
  const second = await take(node.url, 's', 'g', 10, { consumer: 'second' });
  t.same(second.numbers, [0, 1, 2, 3, 4, 5], 'once the first stopped, the second takes over, its messages included');
});

async function pinnedOwners(t: Test, strategy: string, keyOf: (i: number) => string, extra: (i: number) => Record<string, unknown>) {
  const node = await startNode(t);
  await mustCreateGroup(node.url, '$ce-acct', 'g', { namedConsumerStrategy: strategy, resolveLinktos: false });
  for (const consumer of CONSUMERS) await take(node.url, '$ce-acct', 'g', 1, { consumer });
  await appendEvents(node.url, '$ce-acct', 60, extra);
  const owners = new Map<string, Set<string>>();
  for (let round = 0; round < 30; round++) {
    for (const consumer of CONSUMERS) {
      const taken = await take(node.url, '$ce-acct', 'g', 2, { consumer });
      for (const eventNumber of taken.numbers) {
        const key = keyOf(eventNumber);
        const set = owners.get(key) ?? new Set();
        set.add(consumer);
        owners.set(key, set);
      }
      await ack(node.url, '$ce-acct', 'g', taken.ids);
    }
  }
  return owners;
}

t.test('Pinned: the messages of one stream always go to the same consumer', async (t) => {
  const stream = (i: number) => `acct-${i % 12}`;
  const owners = await pinnedOwners(t, 'Pinned', stream, (i) => ({ eventType: '$>', data: `${Math.floor(i / 12)}@${stream(i)}` }));
  t.equal(owners.size, 12, 'every stream was delivered');
  for (const [key, set] of owners) t.equal(set.size, 1, `${key} has one owner`);
  t.ok(new Set([...owners.values()].map((set) => [...set][0])).size > 1, 'the streams are spread over more than one consumer');
});

t.test('PinnedByCorrelation: the messages of one correlation id always go to the same consumer', async (t) => {
  const correlation = (i: number) => `order-${i % 10}`;
  const owners = await pinnedOwners(t, 'PinnedByCorrelation', correlation, (i) => ({ metadata: { $correlationId: correlation(i) } }));
  t.equal(owners.size, 10);
  for (const [key, set] of owners) t.equal(set.size, 1, `${key} has one owner`);
  t.ok(new Set([...owners.values()].map((set) => [...set][0])).size > 1, 'the ids are spread over more than one consumer');
});

t.test('maxSubscriberCount: one consumer too many is refused with a coded 409', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 's', 'g', { maxSubscriberCount: 2 });
  await appendEvents(node.url, 's', 3);
  t.equal((await take(node.url, 's', 'g', 1, { consumer: 'a' })).numbers.length, 1);
  t.equal((await take(node.url, 's', 'g', 1, { consumer: 'b' })).numbers.length, 1);
  const refused = await takeResponse(node.url, 's', 'g', 1, { consumer: 'c' });
  t.equal(refused.status, 409);
  t.equal((await refused.json() as { code: string }).code, 'SVCDB_ERR_SUBSCRIPTION_FULL');
  t.equal((await take(node.url, 's', 'g', 1, { consumer: 'a' })).numbers.length, 1, 'the consumers already there go on');
});
