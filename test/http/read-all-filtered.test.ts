// Filtered $all over HTTP: by stream or event type, by prefixes or an RE2 regular expression, or
// without system events; pages whose links keep the filter, a scan limit that ends a page early
// instead of scanning the whole log, long polls that wait past events the filter refuses, and
// every malformed filter a coded 400.
import t from 'tap';
import { formatAllPosition } from '../../src/daemon/http/streams/all-positions.js';
import { FILTER_SCAN_LIMIT } from '../../src/daemon/services/event-filter.js';
import { newEvents } from '../helpers/engine.js';
import { startNode } from '../helpers/node.js';
import { errorCode, followLinks, get, getFeed, linksOf, parseXml, titlesOf, type JsonFeed } from '../helpers/read.js';
import { pollUntil } from '../helpers/wait.js';

const node = await startNode(t);
await node.engine.append('order-1', -2, newEvents(2, 'OrderPlaced'));
await node.engine.append('invoice-1', -2, newEvents(1, 'InvoiceSent'));
await node.engine.append('order-2', -2, newEvents(1, 'OrderPlaced'));
await node.engine.append('order-1', -2, newEvents(1, 'OrderShipped'));
await node.engine.append('other', -2, newEvents(1, 'Order'));
const FILTERED = '/streams/%24all/filtered';

/** Every title of a filtered read, newest first, walking `next` links from the head page. */
async function walkBackward(query: string, count: number): Promise<{ titles: string[]; pages: JsonFeed[] }> {
  const pages: JsonFeed[] = await followLinks(node, `${FILTERED}/head/backward/${count}?${query}`, 'next');
  return { titles: pages.flatMap(titlesOf), pages };
}

t.test('by stream prefix: only those streams, with links that keep the filter', async (t) => {
  const head = await getFeed(node, `${FILTERED}?context=streamid&type=prefix&data=order-`);
  t.same(titlesOf(head), ['2@order-1', '0@order-2', '1@order-1', '0@order-1']);
  t.equal(head.title, 'All events');
  t.equal(head.headOfStream, false);
  const links = linksOf(node, head.links);
  t.same(Object.keys(links), ['self', 'first', 'previous'], 'the whole log fits one page: no next, and no metadata link on a filtered feed');
  const query = 'context=streamid&type=prefix&data=order-';
  t.equal(links.self, `${FILTERED}?${query}`);
  t.equal(links.first, `${FILTERED}/head/backward/20?${query}`);
  t.match(links.previous, new RegExp(`^${FILTERED}/[0-9A-F]{32}/forward/20\\?${query}$`));
  const caughtUp = await getFeed(node, links.previous);
  t.same(caughtUp.entries, [], 'previous of the head: nothing newer yet');
  t.notOk(linksOf(node, caughtUp.links).previous, 'caught up');
});

t.test('by event type, as prefixes (several) and as a regular expression', async (t) => {
  const prefixes = await getFeed(node, `${FILTERED}?context=EventType&type=Prefix&data=InvoiceSent,OrderShipped`);
  t.same(titlesOf(prefixes), ['2@order-1', '0@invoice-1'], 'names of contexts and types are case-insensitive');
  const regex = await getFeed(node, `${FILTERED}?context=eventtype&type=regex&data=${encodeURIComponent('^Order[A-Z]')}`);
  t.same(titlesOf(regex), ['2@order-1', '0@order-2', '1@order-1', '0@order-1'], 'the regex searches the type: "Order" alone does not match');
  const streamRegex = await getFeed(node, `${FILTERED}?context=streamid&type=regex&data=${encodeURIComponent('-1$')}`);
  t.same(titlesOf(streamRegex), ['2@order-1', '0@invoice-1', '1@order-1', '0@order-1']);
});

t.test('exclude-system-events leaves out every event type starting with $', async (t) => {
  const all = node.engine.readAllForward(0, 1000).events;
  t.ok(all.some((event) => event.eventType.startsWith('$')), 'the node wrote system events (its users) first');
  const expected = all.filter((event) => !event.eventType.startsWith('$')).map((event) => `${event.eventNumber}@${event.streamName}`).reverse();
  const { titles } = await walkBackward('exclude-system-events=true', 2);
  t.same(titles, expected);
  const both = await getFeed(node, `${FILTERED}?exclude-system-events=true&context=streamid&type=prefix&data=other`);
  t.same(titlesOf(both), ['0@other'], 'combined with a filter, an event must pass both');
});

t.test('paging both ways over a filter visits each accepted event once, in order', async (t) => {
  const query = 'context=streamid&type=prefix&data=order-,invoice-';
  const { titles, pages } = await walkBackward(query, 2);
  t.same(titles, ['2@order-1', '0@order-2', '0@invoice-1', '1@order-1', '0@order-1']);
  t.equal(pages.length, 3);
  const last = linksOf(node, pages[0].links).last;
  t.equal(last, `${FILTERED}/${formatAllPosition(0)}/forward/2?${query}`);
  const newer = await followLinks(node, last, 'previous');
  const forward = newer.flatMap((feed) => titlesOf(feed).reverse());
  const page = newer.at(-1)!;
  t.same(forward, [...titles].reverse(), 'forward by previous links: the same events, oldest first');
  t.equal(page.reply.status, 200);
});

t.test('XML filtered feeds carry the filter in their links', async (t) => {
  const reply = await get(node, `${FILTERED}/head/backward/1?context=streamid&type=prefix&data=invoice-`, { accept: 'application/atom+xml' });
  const feed = parseXml(reply.text).feed;
  t.same(feed.entry.map((entry: { title: string }) => entry.title), ['0@invoice-1']);
  const hrefs: string[] = feed.link.map((link: Record<string, string>) => link['@_href']);
  t.ok(hrefs.every((href) => href.includes('/streams/%24all/filtered') && href.endsWith('?context=streamid&type=prefix&data=invoice-')), hrefs.join(' '));
});

t.test('a client regular expression cannot make the read hang (RE2, linear time)', async (t) => {
  // (a+)+$ against a long run of a's and one other character takes exponential time in a
  // backtracking engine; this read would never answer.
  await node.engine.append(`${'a'.repeat(900)}!`, -2, newEvents(1, 'Evil'));
  const reply = await getFeed(node, `${FILTERED}?context=streamid&type=regex&data=${encodeURIComponent('(a+)+$')}`);
  t.same(titlesOf(reply), []);
});

t.test('malformed filters are coded 400s', async (t) => {
  for (const query of [
    '', 'context=streamid', 'context=stream&type=prefix&data=a', 'context=streamid&type=glob&data=a',
    'context=streamid&type=prefix', 'context=streamid&type=prefix&data=', 'context=streamid&type=prefix&data=a,,b',
    `context=streamid&type=prefix&data=${Array.from({ length: 101 }, (_, i) => `p${i}`).join(',')}`,
    `context=eventtype&type=regex&data=${encodeURIComponent('(')}`, `context=eventtype&type=regex&data=${encodeURIComponent('(a)\\1')}`,
    `context=eventtype&type=regex&data=${encodeURIComponent('(?=a)')}`, `context=eventtype&type=regex&data=${'a'.repeat(1001)}`,
    'context=eventtype&context=streamid&type=prefix&data=a', 'exclude-system-events=maybe',
  ]) {
    const reply = await get(node, `${FILTERED}?${query}`, { accept: 'application/json' });
    t.equal(reply.status, 400, query);
    t.equal(await errorCode(reply), 'SVCDB_ERR_FILTER_INVALID', query);
    t.match(JSON.parse(reply.text).message, /^invalid filter: /, query);
  }
  for (const path of [`${FILTERED}/head/forward/3?exclude-system-events=true`, `${FILTERED}/head/backward/0?exclude-system-events=true`, '/streams/order-1/filtered?exclude-system-events=true']) {
    const reply = await get(node, path, { accept: 'application/json' });
    t.equal(reply.status, 400, path);
    t.equal(await errorCode(reply), 'SVCDB_ERR_HTTP_PATH_INVALID', path);
  }
  const beforeTheChange = await get(node, '/streams/order-1/filtered/1', { accept: 'application/json' });
  t.equal(beforeTheChange.status, 400, 'a stream page whose start is the word filtered stays a bad event number');
});

t.test('filtered $all needs the right to read $all', async (t) => {
  const ops = `Basic ${Buffer.from('ops:changeit').toString('base64')}`;
  const reply = await get(node, `${FILTERED}?exclude-system-events=true`, { accept: 'application/json', authorization: ops });
  t.equal(reply.status, 401, 'by default only $admins read $all');
  t.equal(await errorCode(reply), 'SVCDB_ERR_ACCESS_DENIED');
});

t.test('a long poll waits past events the filter refuses', async (t) => {
  const query = 'context=streamid&type=prefix&data=watched-';
  const wait = `${FILTERED}/${formatAllPosition(node.streams.logEnd)}/forward/20?${query}`;
  t.same((await getFeed(node, wait)).entries, [], 'at the end of the log: nothing yet');
  let answered = false;
  const polled = getFeed(node, wait, { 'svc-longpoll': '30' }).then((feed) => {
    answered = true;
    return feed;
  });
  const waitingFor = (count: number) =>
    pollUntil(`${count} waiting long poll, or the poll's answer`, () => node.streams.longPolls.waiting === count || answered, { intervalMs: 5 });
  await waitingFor(1);
  await node.engine.append('unwatched', -2, newEvents(1));
  await waitingFor(1);
  t.notOk(answered, 'an event the filter refuses does not answer the poll: it waits again');
  await node.engine.append('watched-1', -2, newEvents(1));
  t.same(titlesOf(await polled), ['0@watched-1']);

  const quiet = await getFeed(node, `${FILTERED}/${formatAllPosition(node.streams.logEnd)}/forward/20?${query}`, { 'svc-longpoll': '1' });
  t.same(quiet.entries, [], 'nothing accepted before the time is up: the empty page');
});

t.test('a filter matching rarely ends pages early instead of scanning the whole log', async (t) => {
  await node.engine.append('needle', -2, newEvents(1));
  for (let written = 0; written < FILTER_SCAN_LIMIT + 250; written += 250) await node.engine.append('hay', -2, newEvents(250));
  const query = 'context=streamid&type=prefix&data=needle';
  const head = await getFeed(node, `${FILTERED}/head/backward/5?${query}`);
  t.same(head.entries, [], `the newest ${FILTER_SCAN_LIMIT} events hold no needle`);
  const next = linksOf(node, head.links).next;
  t.ok(next, 'but the page is not the end: it links on');
  const { titles } = await walkBackward(query, 5);
  t.same(titles, ['0@needle'], 'following the links finds it');
  const forwardPages = await followLinks(node, `${FILTERED}/${formatAllPosition(0)}/forward/5?${query}`, 'previous');
  const forward = forwardPages.flatMap(titlesOf);
  const pages = forwardPages.length;
  t.same(forward, ['0@needle'], 'forward from the start: found once, and the walk ends');
  t.ok(pages >= 2, `the log is longer than one scan (${pages} pages)`);
});
