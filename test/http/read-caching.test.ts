// Caching of reads (immutable pages, ETag and 304 on the head, $cacheControl) and long polls
// (woken by an append, timing out, released when the client goes away).
import { request as httpRequest } from 'node:http';
import t from 'tap';
import { ADMIN_AUTH } from '../helpers/auth.js';
import { newEvents } from '../helpers/engine.js';
import { startNode } from '../helpers/node.js';
import { ATOM_JSON, get, getFeed, titlesOf } from '../helpers/read.js';
import { pollUntil } from '../helpers/wait.js';

const node = await startNode(t);
await node.engine.append('c', -2, newEvents(10));

const IMMUTABLE = 'max-age=31536000, private';
const REVALIDATE = 'max-age=0, no-cache, must-revalidate';

/** Resolves once `count` requests are held by long polls (checked every turn of the event loop). */
function waiting(count: number): Promise<void> {
  return pollUntil(`${count} long polls to be waiting (${node.streams.longPolls.waiting} when the wait began)`, () => node.streams.longPolls.waiting === count);
}

t.test('pages that cannot change are cacheable for a year, without an ETag', async (t) => {
  for (const path of ['/streams/c/4/backward/5', '/streams/c/0/forward/5', '/streams/c/5/forward/5']) {
    const feed = await getFeed(node, path);
    t.equal(feed.reply.headers.get('cache-control'), IMMUTABLE, path);
    t.equal(feed.reply.headers.get('vary'), 'Accept');
    t.equal(feed.reply.headers.get('etag'), null);
  }
  for (const path of ['/streams/c', '/streams/c/head/backward/5', '/streams/c/6/forward/5', '/streams/c/20/backward/5']) {
    const feed = await getFeed(node, path);
    t.equal(feed.reply.headers.get('cache-control'), REVALIDATE, `${path}: the head or a partial page is revalidated`);
    t.match(feed.reply.headers.get('etag'), /^"9;-?\d+"$/);
    t.equal(feed.reply.headers.get('vary'), 'Accept');
  }
});

t.test('If-None-Match with the head\'s ETag: 304 until the stream changes', async (t) => {
  await node.engine.append('etag', -2, newEvents(2));
  const head = await getFeed(node, '/streams/etag');
  const etag = head.reply.headers.get('etag')!;
  t.equal(head.eTag, etag.slice(1, -1), 'the JSON body shows the same ETag');

  const same = await get(node, '/streams/etag', { accept: ATOM_JSON, 'if-none-match': etag });
  t.equal(same.status, 304);
  t.equal(same.statusText, 'Not Modified');
  t.equal(same.text, '');
  t.equal(same.headers.get('etag'), etag);
  t.equal((await get(node, '/streams/etag', { accept: ATOM_JSON, 'if-none-match': etag.slice(1, -1) })).status, 304, 'quotes optional');

  const otherType = await get(node, '/streams/etag', { accept: 'application/json', 'if-none-match': etag });
  t.equal(otherType.status, 200, 'one media type\'s ETag never validates another');
  t.not(otherType.headers.get('etag'), etag);
  for (const malformed of ['garbage', '"1;x"', '*', '"";', ';']) {
    t.equal((await get(node, '/streams/etag', { accept: ATOM_JSON, 'if-none-match': malformed })).status, 200, `ignored: ${malformed}`);
  }

  await node.engine.append('etag', -2, newEvents(1));
  const changed = await get(node, '/streams/etag', { accept: ATOM_JSON, 'if-none-match': etag });
  t.equal(changed.status, 200, 'a new event: 200');
  t.match(changed.headers.get('etag'), /^"2;/);
});

t.test('$cacheControl in the stream metadata sets max-age of head pages', async (t) => {
  await node.engine.append('cached', -2, newEvents(3));
  await node.engine.setStreamMetadata('cached', -2, { $cacheControl: 30 });
  t.equal((await getFeed(node, '/streams/cached')).reply.headers.get('cache-control'), 'max-age=30, private');
  t.equal((await getFeed(node, '/streams/cached/1/backward/2')).reply.headers.get('cache-control'), IMMUTABLE, 'immutable pages unchanged');
});

t.test('with --disable-http-caching every reply says no-cache, and ETags still validate', async (t) => {
  const uncached = await startNode(t, { disableHttpCaching: true });
  await uncached.engine.append('c', -2, newEvents(10));
  await uncached.engine.setStreamMetadata('m', -2, { $cacheControl: 30 });
  for (const path of ['/streams/c/4/backward/5', '/streams/c/0/forward/5', '/streams/c', '/streams/c/3', '/streams/m/metadata', '/streams/c/']) {
    const reply = await get(uncached, path, { accept: ATOM_JSON });
    t.equal(reply.headers.get('cache-control'), REVALIDATE, path);
  }
  const head = await get(uncached, '/streams/c', { accept: ATOM_JSON });
  t.equal((await get(uncached, '/streams/c', { accept: ATOM_JSON, 'if-none-match': head.headers.get('etag')! })).status, 304);
});

t.test('a long poll past the end is answered by the next append', async (t) => {
  await node.engine.append('poll', -2, newEvents(2));
  const response = getFeed(node, '/streams/poll/2/forward/20', { 'svc-longpoll': '30' });
  await waiting(1);
  await node.engine.append('poll', -2, newEvents(1));
  const feed = await response;
  // A poll that timed out would answer an empty page: the event proves the append woke it.
  t.same(titlesOf(feed), ['2@poll'], 'the new event');
  t.equal(node.streams.longPolls.waiting, 0);
});

t.test('a long poll on a stream not yet written is answered by its first event', async (t) => {
  const response = getFeed(node, '/streams/later/0/forward/20', { 'svc-longpoll': '30' });
  await waiting(1);
  await node.engine.append('later', -2, newEvents(1));
  t.same(titlesOf(await response), ['0@later']);
});

t.test('a long poll that would be a 304 waits for a change', async (t) => {
  await node.engine.append('poll304', -2, newEvents(2));
  const page = await getFeed(node, '/streams/poll304/0/forward/20');
  const response = get(node, '/streams/poll304/0/forward/20', { accept: ATOM_JSON, 'svc-longpoll': '30', 'if-none-match': page.reply.headers.get('etag')! });
  await waiting(1);
  await node.engine.append('poll304', -2, newEvents(1));
  const reply = await response;
  t.equal(reply.status, 200);
  t.equal(JSON.parse(reply.text).entries.length, 3);
});

t.test('long polls on $all and on metadata feeds, woken by one metadata write', async (t) => {
  await node.engine.append('meta-poll', -2, newEvents(1));
  const end = node.engine.status().readableEnd.toString(16).toUpperCase().padStart(16, '0');
  const all = getFeed(node, `/streams/%24all/${end}${end}/forward/5`, { 'svc-longpoll': '30' });
  const metadata = getFeed(node, '/streams/meta-poll/metadata/0/forward/5', { 'svc-longpoll': '30' });
  await waiting(2);
  await node.engine.setStreamMetadata('meta-poll', -2, { $maxCount: 5 });
  t.same(titlesOf(await metadata), ['0@$$meta-poll']);
  t.same(titlesOf(await all), ['0@$$meta-poll']);
});

t.test('a long poll times out with the normal answer', async (t) => {
  await node.engine.append('quiet', -2, newEvents(1));
  const [feed, missing] = await Promise.all([
    getFeed(node, '/streams/quiet/1/forward/20', { 'svc-longpoll': '1' }),
    get(node, '/streams/still-missing/0/forward/20', { accept: ATOM_JSON, 'svc-longpoll': '1' }),
  ]);
  t.same(feed.entries, [], 'the empty page');
  t.equal(missing.status, 404, 'a stream that never came: 404');
  t.equal(node.streams.longPolls.waiting, 0, 'both waiters released by their timers');
});

t.test('a client that goes away releases its long poll', async (t) => {
  // A connection of its own, so that closing it leaves no pooled keep-alive socket behind.
  const request = httpRequest(`${node.url}/streams/abandoned/0/forward/20`, { agent: false, headers: { accept: ATOM_JSON, 'svc-longpoll': '30', authorization: ADMIN_AUTH } });
  request.on('error', () => undefined);
  request.end();
  await waiting(1);
  request.destroy();
  await waiting(0);
  t.equal(node.streams.longPolls.waiting, 0, 'no waiter left');
});

t.test('backward reads do not long poll; a malformed Svc-LongPoll on a forward read is a coded 400', async (t) => {
  const backward = get(node, '/streams/c/head/backward/5', { accept: ATOM_JSON, 'svc-longpoll': '5' });
  t.equal((await backward).status, 200);
  t.equal(node.streams.longPolls.waiting, 0, 'no long poll was registered for a backward read');
  for (const value of ['0', '-1', 'abc', '601', '1.5', '']) {
    const reply = await get(node, '/streams/c/10/forward/5', { accept: ATOM_JSON, 'svc-longpoll': value });
    t.equal(reply.status, 400, `Svc-LongPoll: '${value}'`);
    t.equal(JSON.parse(reply.text).code, 'SVCDB_ERR_HTTP_HEADER_INVALID');
  }
});

t.test('a rendered page is served again only while the log is unchanged', async (t) => {
  await node.engine.append('kept', -2, newEvents(5));
  const path = '/streams/kept/0/forward/5';
  const first = await get(node, path, { accept: ATOM_JSON });
  const second = await get(node, path, { accept: ATOM_JSON });
  t.equal(second.text, first.text, 'the same page');
  for (const header of ['cache-control', 'etag', 'vary', 'content-type']) t.equal(second.headers.get(header), first.headers.get(header), header);

  await node.engine.append('elsewhere', -2, newEvents(1));
  t.equal((await get(node, path, { accept: ATOM_JSON })).text, first.text, 'a write to another stream changes nothing here');

  // Regression: a metadata write changes even a page that is otherwise immutable.
  await node.engine.setStreamMetadata('kept', -2, { $tb: 3 });
  t.same(titlesOf(await getFeed(node, path)), ['4@kept', '3@kept'], 'events before $tb are gone at once');

  const proxied = await getFeed(node, path, { 'x-forwarded-host': 'other.example' });
  t.equal(proxied.id, 'http://other.example/streams/kept', 'pages for another base URL are their own');
  const xml = await get(node, path, { accept: 'application/atom+xml' });
  t.match(xml.text, /^<\?xml/, 'and for another media type');
  const rich = await getFeed(node, `${path}?embed=rich`);
  t.ok('isJson' in rich.entries[0], 'and for another embed level');
});

t.test('the metadata of a stream that has none answers {} without an ETag; written metadata has one', async (t) => {
  const bare = await get(node, '/streams/c/metadata', { accept: 'application/json' });
  t.equal(bare.status, 200);
  t.equal(bare.text, '{}');
  t.equal(bare.headers.get('etag'), null, 'no metadata event, no version, no ETag');
  t.equal(bare.headers.get('cache-control'), REVALIDATE);
  await node.engine.append('with-meta', -2, newEvents(1));
  await node.engine.setStreamMetadata('with-meta', -2, { $maxCount: 5 });
  const written = await get(node, '/streams/with-meta/metadata', { accept: 'application/json' });
  t.match(written.headers.get('etag'), /^"0;-?[0-9]+"$/, 'the metadata event\'s number');
});
