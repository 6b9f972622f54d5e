import t from 'tap';
import { SKIP_SYSTEM_STREAMS, type AllPage } from '../../src/storage/read/reader.js';
import { LongPollHub } from '../../src/daemon/services/long-poll.js';
import { newEvent, newEvents, openEngine, SMALL, tempDirectory } from '../helpers/engine.js';
import { pollUntil } from '../helpers/wait.js';

const APPENDERS = 50;
const APPENDS_EACH = 8;

const until = (what: string, check: () => boolean) => pollUntil(what, check, { intervalMs: 5 });

t.test('a throwing and a stalled consumer never hold up the writer; a healthy one sees every event in order', async (t) => {
  const engine = await openEngine(tempDirectory(t));
  const seen: string[] = [];
  const healthy = engine.follow({ name: 'healthy', fromPosition: 0, handle: (page: AllPage) => void seen.push(...page.events.map((event) => event.eventId)) });
  const throwing = engine.follow({ name: 'throwing', handle: () => { throw new Error('consumer bug'); } });
  let release: () => void = () => undefined;
  const stall = new Promise<void>((resolve) => (release = resolve));
  let stalledPages = 0;
  const stalledSeen: string[] = [];
  const stalled = engine.follow({
    name: 'stalled', pageEventsMax: 50, handle: async (page) => {
      stalledPages++;
      stalledSeen.push(...page.events.map((event) => event.eventId));
      await stall;
    },
  });

  const written: string[][] = Array.from({ length: APPENDERS }, () => []);
  const outcomes = await Promise.allSettled(Array.from({ length: APPENDERS }, async (_, appender) => {
    for (let i = 0; i < APPENDS_EACH; i++) {
      const event = newEvent('Appended', { appender, i });
      await engine.append(`appender-${appender}`, i - 1, [event]);
      written[appender].push(event.eventId);
    }
  }));
  t.equal(outcomes.filter((outcome) => outcome.status === 'fulfilled').length, APPENDERS, 'every append is acknowledged');
  t.equal(engine.status().state, 'open', 'the engine stays open');

  const allEvents = (() => {
    const ids: string[] = [];
    let position = 0;
    for (;;) {
      const page = engine.readAllForward(position, 1000);
      ids.push(...page.events.map((event) => event.eventId));
      if (page.isEnd) return ids;
      position = page.nextPosition;
    }
  })();
  await until('the healthy consumer to catch up', () => seen.length === allEvents.length);
  t.same(seen, allEvents, 'the healthy consumer saw every event, in log order');
  for (let appender = 0; appender < APPENDERS; appender++) {
    const order = seen.filter((id) => written[appender].includes(id));
    if (order.join() !== written[appender].join()) t.fail(`appender ${appender}: events out of order`);
  }

  const statuses = new Map(engine.stats().consumers.map((status) => [status.name, status]));
  t.match(statuses.get('throwing'), { state: 'failed', error: 'consumer bug' }, 'the throwing consumer is stopped and reported');
  t.equal(stalledPages, 1, 'the stalled consumer holds its first page');
  t.ok(statuses.get('stalled')!.behindBytes > 0, 'and falls behind');
  t.equal(statuses.get('healthy')!.behindBytes, 0, 'the healthy one is at the end');

  release();
  await until('the stalled consumer to catch up', () => stalled.status().behindBytes === 0);
  t.equal(new Set(stalledSeen).size, stalledSeen.length, 'once released it reads on without repeating a record');
  t.equal(stalled.status().state, 'idle');
  t.equal(throwing.status().state, 'failed', 'the failed consumer stays stopped');
  healthy.stop();
});

t.test('appends are acknowledged before consumers are woken, and a throwing commit hook fails nothing', async (t) => {
  const engine = await openEngine(tempDirectory(t));
  const order: string[] = [];
  engine.follow({ name: 'recorder', handle: (page) => void order.push(...page.events.map((event) => `consumer ${event.streamName}`)) });
  engine.beforeAcknowledge(() => {
    throw new Error('hook bug');
  });
  let hookCalls = 0;
  engine.beforeAcknowledge(() => void hookCalls++);
  await engine.append('first', -1, [newEvent()]).then(() => order.push('acknowledged first'));
  await engine.append('second', -1, [newEvent()]).then(() => order.push('acknowledged second'));
  await until('the consumer to see both', () => order.length === 4);
  t.same(order, ['acknowledged first', 'consumer first', 'acknowledged second', 'consumer second']);
  t.equal(hookCalls, 2, 'the other hook still hears every commit');
});

t.test('an append that wakes 5,000 long polls is acknowledged first; the waiters wake over several turns', async (t) => {
  const engine = await openEngine(tempDirectory(t));
  const hub = new LongPollHub((options) => engine.follow(options));
  const events: string[] = [];
  const waits = Array.from({ length: 5000 }, () => hub.wait('watched', 60_000).then((woken) => {
    if (events.length === 0 || events[events.length - 1] !== 'woken') events.push('woken');
    return woken;
  }));
  t.equal(hub.waiting, 5000);
  await engine.append('watched', -1, [newEvent()]);
  events.push('acknowledged');
  const woken = await Promise.all(waits);
  t.ok(woken.every(Boolean), 'every waiter is woken');
  t.equal(events[0], 'acknowledged', 'the append is answered before any waiter wakes');
  t.ok(hub.wakeSlices > 1, `the waiters are woken in slices (${hub.wakeSlices})`);
  hub.close();
});

t.test('a consumer that skips system streams but metadata also gets the events of metadata streams, soft deletes among them', async (t) => {
  const engine = await openEngine(tempDirectory(t), SMALL);
  const seen: string[] = [];
  engine.follow({ name: 'but-metadata', fromPosition: 0, pageEventsMax: 5, skipSystemStreams: 'butMetadata', handle: (page) => {
    seen.push(...page.events.map((event) => `${event.streamName}/${event.eventType}`));
  } });
  await engine.append('plain-1', -2, [newEvent('A', {})]);
  await engine.append('$system-1', -2, [newEvent('B', {})]);
  await engine.setStreamMetadata('plain-1', -2, { $maxCount: 3 });
  await engine.deleteStream('plain-1', -2, false);
  await engine.setStreamMetadata('$system-1', -2, { $maxCount: 3 });
  await engine.append('plain-2', -2, [newEvent('C', {})]);
  const expected = ['plain-1/A', '$$plain-1/$metadata', '$$plain-1/$metadata', '$$$system-1/$metadata', 'plain-2/C'];
  await until('the consumer to see every kept event', () => seen.length >= expected.length);
  t.same(seen, expected, 'the event of $system-1 is passed over; metadata events are kept, in log order');
});

t.test('a consumer that skips system streams gets every other event in log order, across chunks, and reaches the end', async (t) => {
  const engine = await openEngine(tempDirectory(t), SMALL);
  const seen: string[] = [];
  let pages = 0;
  engine.follow({ name: 'no-system', fromPosition: 0, pageEventsMax: 7, skipSystemStreams: true, handle: (page) => {
    pages++;
    seen.push(...page.events.map((event) => `${event.streamName}/${event.eventNumber}`));
  } });
  const expected: string[] = [];
  for (let i = 0; i < 300; i++) {
    const stream = i % 3 === 0 ? `plain-${i % 4}` : `$system-${i % 5}`;
    const result = await engine.append(stream, -2, newEvents(3));
    if (!stream.startsWith('$')) for (let n = result.firstEventNumber; n <= result.lastEventNumber; n++) expected.push(`${stream}/${n}`);
  }
  t.ok(engine.status().readableEnd > SMALL.chunkSizeBytes, 'the log spans several chunks');
  await until('the consumer to reach the end', () => {
    const status = engine.stats().consumers.find((consumer) => consumer.name === 'no-system');
    return status !== undefined && status.behindBytes === 0 && seen.length >= expected.length;
  });
  t.same(seen, expected, 'only the events of non-system streams, in log order');
  t.ok(pages > 0);
  const read = engine.readAllForward(0, 4096, SKIP_SYSTEM_STREAMS);
  t.same(read.events.map((event) => `${event.streamName}/${event.eventNumber}`), expected, 'a read with the filter gives the same events');
  t.ok(read.isEnd, 'and ends at the end of the log');
});
