// POST /admin/shutdown while appenders keep writing: the node answers, stops accepting, lets
// in-flight appends finish, flushes, releases the lock and exits 0; after it, every append that
// was acknowledged is in the log at the number it was acknowledged with. Long polls waiting when
// the stop begins are answered at once, as at their timeout, and do not hold the stop.
import { randomUUID } from 'node:crypto';
import { adminFetch } from '../helpers/auth.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { Engine } from '../../src/storage/engine.js';
import { startServer } from '../helpers/cli.js';
import { appendEvents, mustCreateGroup, takenOf, takeResponse, type CompetingFeed } from '../helpers/subscriptions.js';
import { pollUntilAsync, withDeadline } from '../helpers/wait.js';

const STREAMS = 8;
const APPENDS_PER_STREAM_MAX = 400;
const ACKS_BEFORE_SHUTDOWN = 60;

t.test('graceful shutdown under load loses no acknowledged append and leaves no lock', async (t) => {
  const dbPath = join(t.testdir(), 'db');
  const server = await startServer(t, { dbPath, args: ['--chunk-size', '1048576', '--stream-existence-filter-size', '0'] });
  const acknowledged = new Map<string, { stream: string; eventNumber: number }>();
  let releaseShutdown!: () => void;
  const enoughAcks = new Promise<void>((resolve) => {
    releaseShutdown = resolve;
  });
  const refusals = new Map<number, number>();

  // Each stream gets one appender writing at the next expected version, so its events are in order.
  async function appender(stream: string): Promise<void> {
    for (let eventNumber = 0; eventNumber < APPENDS_PER_STREAM_MAX; eventNumber++) {
      const eventId = randomUUID();
      let response: Response;
      try {
        response = await adminFetch(`${server.url}/streams/${stream}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json', 'svc-eventtype': 'Load', 'svc-eventid': eventId,
            'svc-expectedversion': String(eventNumber - 1),
          },
          body: JSON.stringify({ stream, eventNumber }),
        });
      } catch {
        return; // The node closed the connection or no longer listens.
      }
      await response.arrayBuffer();
      if (response.status !== 201) {
        refusals.set(response.status, (refusals.get(response.status) ?? 0) + 1);
        return;
      }
      t.equal(response.headers.get('location'), `${server.url}/streams/${stream}/${eventNumber}`);
      acknowledged.set(eventId, { stream, eventNumber });
      if (acknowledged.size === ACKS_BEFORE_SHUTDOWN) releaseShutdown();
    }
    releaseShutdown();
  }

  const streams = Array.from({ length: STREAMS }, (_, index) => `load-${index}`);
  const appenders = Promise.all(streams.map(appender));
  await withDeadline(enoughAcks, `${ACKS_BEFORE_SHUTDOWN} acknowledged appends`);
  const shutdown = await adminFetch(`${server.url}/admin/shutdown`, { method: 'POST' });
  t.equal(shutdown.status, 200, 'the shutdown request is answered');
  await withDeadline(appenders, 'the appenders to stop once the node stops taking appends');
  const exit = await withDeadline(server.process.exited, 'svcdb serve to exit after POST /admin/shutdown');
  t.equal(exit.code, 0, 'exit code 0');
  t.ok(server.process.logLines.some((line) => line.msg === 'stopped' && line.clean === true && line.cause === 'request'),
    'a clean stop caused by the request');
  t.notOk(existsSync(join(dbPath, 'svcdb.lock')), 'the lock is released');
  t.ok(acknowledged.size >= ACKS_BEFORE_SHUTDOWN, `${acknowledged.size} appends were acknowledged`);
  for (const status of refusals.keys()) t.equal(status, 503, 'appends after the stop began are refused with 503');

  const engine = await Engine.open({ dbPath, indexPath: join(dbPath, '..', 'index'), chunkSizeBytes: 1_048_576, existenceFilterSizeBytes: 0 });
  let missing = 0;
  try {
    for (const [eventId, { stream, eventNumber }] of acknowledged) {
      const read = engine.readEvent(stream, eventNumber);
      if (read.event?.eventId !== eventId) missing++;
    }
  } finally {
    // Closed here, not at teardown: the test directory goes away at teardown.
    await engine.close();
  }
  t.equal(missing, 0, 'every acknowledged append is in the log at its acknowledged number');
});

interface FeedLinks {
  links: Array<{ uri: string; relation: string }>;
}

/** Requests the node is handling now, the one asking included. */
async function requestsInFlight(url: string): Promise<number> {
  const stats = await adminFetch(`${url}/stats`).then((reply) => reply.json()) as { svc: { queue: { HttpRequests: { length: number } } } };
  return stats.svc.queue.HttpRequests.length;
}

t.test('long polls waiting when the stop begins are answered at once and do not hold it', async (t) => {
  const server = await startServer(t, { dbPath: join(t.testdir(), 'db') });
  const { url } = server;
  await appendEvents(url, 'orders', 1);
  await mustCreateGroup(url, 'orders', 'billing');
  t.equal(takenOf(await takeResponse(url, 'orders', 'billing', 1).then((reply) => reply.json()) as CompetingFeed).ids.length, 1, 'the one message is taken');
  // The longest a client may ask for: without the early answer the stop would wait 600 seconds.
  const longPoll = { accept: 'application/json', 'svc-longpoll': '600' };
  // The head of $all links (as previous) to the page after its last event, where a long poll waits.
  const head = await adminFetch(`${url}/streams/%24all`, { headers: { accept: 'application/json' } }).then((reply) => reply.json()) as FeedLinks;
  const polls = [
    adminFetch(`${url}/streams/orders/1/forward/20`, { headers: longPoll }),
    adminFetch(head.links.find((link) => link.relation === 'previous')!.uri, { headers: longPoll }),
    takeResponse(url, 'orders', 'billing', 1, { headers: { 'svc-longpoll': '600' } }),
  ];
  await pollUntilAsync('the three long polls to wait', async () => await requestsInFlight(url) === polls.length + 1, { intervalMs: 50 });

  t.equal((await adminFetch(`${url}/admin/shutdown`, { method: 'POST' })).status, 200, 'the shutdown request is answered');
  const [stream, all, group] = await withDeadline(Promise.all(polls), 'the long polls to be answered once the stop began');
  t.equal(stream.status, 200, 'the stream\'s long poll is answered as at its timeout');
  t.same(((await stream.json()) as { entries: unknown[] }).entries, [], 'with no events');
  t.equal(all.status, 200, 'the long poll on $all too');
  t.equal(group.status, 200, 'and the waiting consumer');
  t.same(takenOf(await group.json() as CompetingFeed).ids, [], 'with no message');
  const exit = await withDeadline(server.process.exited, 'svcdb serve to exit with long polls open');
  t.equal(exit.code, 0, 'exit code 0');
});
