import t from 'tap';
import type { AllPage } from '../../src/storage/read/reader.js';
import { withSharedPages } from '../../src/daemon/projections/shared-pages.js';
import { newEvents, openEngine, tempDirectory } from '../helpers/engine.js';
import { pollUntil } from '../helpers/wait.js';

t.test('consumers that follow the log together through shared pages each see every event once, in order, from one read per page', async (t) => {
  const engine = await openEngine(tempDirectory(t));
  t.teardown(() => engine.close());
  for (let i = 0; i < 30; i++) await engine.append(`orders-${i % 4}`, -2, newEvents(10));
  await engine.append('$system-stream', -2, newEvents(5));
  let reads = 0;
  // The engine itself, its reads counted.
  const counted = Object.assign(Object.create(engine) as typeof engine, {
    readAllForward: (...args: Parameters<typeof engine.readAllForward>) => {
      reads++;
      return engine.readAllForward(...args);
    },
  });
  const storage = withSharedPages(counted);
  const seen: string[][] = [[], [], []];
  const consumers = seen.map((ids, n) => storage.follow({
    name: `shared ${n}`, fromPosition: 0, pageEventsMax: 40, skipSystemStreams: true,
    handle: (page: AllPage) => void ids.push(...page.events.map((event) => event.eventId)),
  }));
  t.teardown(() => consumers.forEach((consumer) => storage.unfollow(consumer)));
  const expected = engine.readAllForward(0, 4096).events.filter((event) => !event.streamName.startsWith('$')).map((event) => event.eventId);
  t.equal(expected.length, 300);
  await pollUntil('every consumer has read to the end', () => seen.every((ids) => ids.length >= expected.length));
  for (const ids of seen) t.same(ids, expected, 'every event once, in log order');
  t.ok(reads <= Math.ceil(expected.length / 40) + 1, `${reads} reads of the log for 3 consumers of ${Math.ceil(expected.length / 40)} pages`);

  await engine.append('orders-9', -2, newEvents(7));
  await pollUntil('every consumer has the new events', () => seen.every((ids) => ids.length === expected.length + 7));
  t.same(seen[1].slice(-7), seen[0].slice(-7), 'the events appended later reach each consumer alike');
});
