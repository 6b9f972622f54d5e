// The order of a competing-consumer feed and of redelivery. The feed lists the newest message
// first, as every other feed does, while its ackAll/nackAll ids keep delivery order. Messages put
// back for retry are delivered again in event order, whatever order the nacks came in, before the
// rest of the stream; replayed parked messages come after them. Regression: retries went out in
// the order the nacks came, and the feed listed the oldest first.
import t from 'tap';
import { adminFetch } from '../helpers/auth.js';
import { startNode } from '../helpers/node.js';
import {
  ack, appendEvents, COMPETING_JSON, groupUrl, mustCreateGroup, nack, parkedNumbers, take, type CompetingFeed,
} from '../helpers/subscriptions.js';
import { withDeadline } from '../helpers/wait.js';

t.test('nack 0-3, ack 4-7, nack 8-11 of 12, then 10 more: the feed is 11,10,9,8,3,2,1,0', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 's', 'g');
  await appendEvents(node.url, 's', 12);
  const page = await take(node.url, 's', 'g', 12, { consumer: 'c' });
  t.same(page.feed.entries.map((entry) => entry.title), Array.from({ length: 12 }, (_, i) => `${11 - i}@s`), 'a first page newest first too');
  const ids = page.ids;
  t.equal((await nack(node.url, 's', 'g', ids.slice(0, 4), 'Retry', 'c')).status, 202);
  t.equal((await ack(node.url, 's', 'g', ids.slice(4, 8))).status, 202);
  t.equal((await nack(node.url, 's', 'g', ids.slice(8, 12), 'Retry', 'c')).status, 202);

  const response = await adminFetch(`${groupUrl(node.url, 's', 'g')}/10`, { headers: { accept: COMPETING_JSON, 'svc-connectionname': 'c' } });
  t.equal(response.status, 200);
  t.match(response.headers.get('content-type'), /^application\/vnd\.svc\.competingatom\+json/);
  const feed = await response.json() as CompetingFeed;
  t.same(feed.entries.map((entry) => entry.title), ['11@s', '10@s', '9@s', '8@s', '3@s', '2@s', '1@s', '0@s']);
  t.same(feed.entries.map((entry) => entry.retryCount), [1, 1, 1, 1, 1, 1, 1, 1]);
  const delivered = [...ids.slice(0, 4), ...ids.slice(8, 12)].join(',');
  const self = groupUrl(node.url, 's', 'g');
  t.same(feed.links.slice(0, 2), [
    { uri: `${self}/ack?ids=${delivered}`, relation: 'ackAll' }, { uri: `${self}/nack?ids=${delivered}`, relation: 'nackAll' },
  ], 'ackAll and nackAll in delivery order');
});

t.test('retries in event order whatever order the nacks came in, before the rest of the stream', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 's', 'g');
  await appendEvents(node.url, 's', 8);
  const page = await take(node.url, 's', 'g', 6, { consumer: 'c' });
  for (const index of [5, 1, 3, 0]) await nack(node.url, 's', 'g', [page.ids[index]], 'Retry', 'c');
  const again = await take(node.url, 's', 'g', 10, { consumer: 'c' });
  t.same(again.numbers, [0, 1, 3, 5, 6, 7], 'delivery order');
  t.same(again.feed.entries.map((entry) => entry.title), ['7@s', '6@s', '5@s', '3@s', '1@s', '0@s'], 'the feed, newest first');
});

t.test('replayed parked messages come after the retried ones', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 's', 'g');
  await appendEvents(node.url, 's', 4);
  const page = await take(node.url, 's', 'g', 4, { consumer: 'c' });
  await nack(node.url, 's', 'g', page.ids.slice(0, 2), 'Park', 'c');
  await withDeadline((async () => {
    while ((await parkedNumbers(node.url, 's', 'g')).length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
  })(), 'the parked copies');
  await nack(node.url, 's', 'g', [page.ids[3], page.ids[2]], 'Retry', 'c');
  t.equal((await adminFetch(`${groupUrl(node.url, 's', 'g')}/replayParked`, { method: 'POST' })).status, 200);
  const again = await take(node.url, 's', 'g', 10, { consumer: 'c' });
  t.same(again.numbers, [2, 3, 0, 1], 'the retries by event number, then the replayed parked messages');
});
