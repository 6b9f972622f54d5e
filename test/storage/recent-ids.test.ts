import t from 'tap';
import { randomUUID } from 'node:crypto';
import { RecentIds } from '../../src/storage/streams/recent-ids.js';

const write = (count: number) => Array.from({ length: count }, () => ({ eventId: randomUUID() }));

t.test('every event of a write is found by its id, in either case, at its event number', async (t) => {
  const recent = new RecentIds(1000);
  const events = write(5);
  recent.add(events, 40);
  events.forEach((event, i) => {
    t.equal(recent.get(event.eventId), 40 + i);
    t.equal(recent.get(event.eventId.toUpperCase()), 40 + i, 'case does not matter');
  });
  t.equal(recent.get(randomUUID()), undefined, 'an id never written is not found');
});

t.test('a refused write is forgotten, and the oldest writes go once the cache is full', async (t) => {
  const recent = new RecentIds(3);
  const refused = write(2);
  recent.add(refused, 0);
  recent.forget(refused);
  t.equal(recent.get(refused[0].eventId), undefined);
  t.equal(recent.get(refused[1].eventId), undefined);
  const writes = Array.from({ length: 4 }, () => write(1));
  writes.forEach((events, i) => recent.add(events, i));
  t.equal(recent.get(writes[0][0].eventId), undefined, 'the oldest of four is gone from a cache of three');
  t.same(writes.slice(1).map((events) => recent.get(events[0].eventId)), [1, 2, 3]);
});

t.test('ids that differ only in a few digits of their first eight, many of them, each keep their number', async (t) => {
  const capacity = 5000;
  const recent = new RecentIds(capacity);
  const idOf = (n: number) => `${(n * 0x10000).toString(16).padStart(8, '0').slice(-8)}-0000-4000-8000-000000000000`;
  const writes = Array.from({ length: capacity * 3 }, (_, n) => [{ eventId: randomUUID() }, { eventId: idOf(n) }]);
  writes.forEach((events, n) => recent.add(events, n * 2));
  // The oldest have made room for the newest: the last `capacity` second ids are found, the others not.
  const found = writes.map((events) => recent.get(events[1].eventId));
  const kept = found.slice(-capacity);
  t.ok(kept.every((number, i) => number === (writes.length - capacity + i) * 2 + 1), 'every recent id is found at its number');
  const forgottenEarly = found.slice(0, -capacity).filter((number) => number !== undefined);
  t.same(forgottenEarly, [], 'the oldest are forgotten');
});

t.test('a forgotten write leaves every other remembered id where it was', async (t) => {
  const recent = new RecentIds(2000);
  const writes = Array.from({ length: 300 }, () => write(5));
  writes.forEach((events, i) => recent.add(events, i * 5));
  for (let i = 0; i < writes.length; i += 3) recent.forget(writes[i]);
  writes.forEach((events, i) => events.forEach((event, j) => {
    if (i % 3 === 0) t.equal(recent.get(event.eventId), undefined);
    else if (recent.get(event.eventId) !== i * 5 + j) t.fail(`id ${i}/${j} lost`);
  }));
});
