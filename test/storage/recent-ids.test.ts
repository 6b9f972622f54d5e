import t from 'tap';
import { randomUUID } from 'node:crypto';
import { RecentIds } from '../../src/storage/recent-ids.js';

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
