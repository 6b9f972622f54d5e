// $all over HTTP: pages both ways by 32-hex-digit position with the links of the wire note,
// walking the whole log through next and previous, and bad positions refused with a code.
import t from 'tap';
import { formatAllPosition } from '../../src/daemon/http/streams/all-positions.js';
import { newEvents } from '../helpers/engine.js';
import { startNode } from '../helpers/node.js';
import { followLinks, get, getFeed, linksOf, parseXml, titlesOf, type JsonFeed } from '../helpers/read.js';

const node = await startNode(t);
await node.engine.append('a', -2, newEvents(3));
await node.engine.append('b', -2, newEvents(2));
await node.engine.append('a', -2, newEvents(2));
// Log order: the users a new node starts with, then a0 a1 a2 b0 b1 a3 a4.
const log = node.engine.readAllForward(0, 100).events;
const isTestStream = (streamName: string) => streamName === 'a' || streamName === 'b';
const records = log.filter((record) => isTestStream(record.streamName));
const startTitles = log.filter((record) => !isTestStream(record.streamName)).map((record) => `${record.eventNumber}@${record.streamName}`).reverse();
const position = (index: number) => formatAllPosition(records[index].logPosition);
const ALL = '/streams/%24all';
const START = '00000000000000000000000000000000';

t.test('positions are 32 uppercase hex digits, commit then prepare', async (t) => {
  t.equal(records.length, 7);
  t.match(position(3), /^[0-9A-F]{32}$/);
  t.equal(position(3).slice(0, 16), position(3).slice(16));
  t.equal(formatAllPosition(0), START);
});

t.test('backward from the head, then by next links to the start', async (t) => {
  const head = await getFeed(node, `${ALL}/head/backward/3`);
  t.equal(head.title, 'All events');
  t.equal(head.id, `${node.url}${ALL}`);
  t.equal(head.headOfStream, false);
  t.equal(head.streamId, undefined);
  t.same(titlesOf(head), ['4@a', '3@a', '1@b'], 'entries name their own streams');
  const links = linksOf(node, head.links);
  t.same(Object.keys(links), ['self', 'first', 'last', 'next', 'previous', 'metadata']);
  t.equal(links.self, ALL);
  t.equal(links.first, `${ALL}/head/backward/3`);
  t.equal(links.last, `${ALL}/${START}/forward/3`);
  t.equal(links.next, `${ALL}/${position(4)}/backward/3`, 'next: the position of the oldest event on the page');
  t.equal(links.metadata, `${ALL}/metadata`);
  t.match(head.reply.headers.get('etag'), /^"\d+;-?\d+"$/, 'the head page is revalidated');

  const caughtUp = await getFeed(node, links.previous);
  t.same(caughtUp.entries, [], 'previous of the head: after the newest event, nothing yet');
  t.notOk(linksOf(node, caughtUp.links).previous, 'and no previous link: caught up');

  const second = await getFeed(node, links.next);
  t.same(titlesOf(second), ['0@b', '2@a', '1@a']);
  t.equal(second.reply.headers.get('cache-control'), 'max-age=31536000, private', 'a page behind the head never changes');
  t.equal(linksOf(node, second.links).previous, `${ALL}/${position(4)}/forward/3`, 'previous: just after the newest event (0@b)');
  // On to the start of the log, through the events of the node's first start.
  const older = await followLinks(node, linksOf(node, second.links).next, 'next');
  const rest = older.flatMap(titlesOf);
  const page = older.at(-1)!;
  t.same(rest, ['0@a', ...startTitles]);
  t.same(Object.keys(linksOf(node, page.links)), ['self', 'first', 'previous', 'metadata'], 'at the start: no last or next');
  const newestFirst = ['4@a', '3@a', '1@b', '0@b', '2@a', '1@a', '0@a', ...startTitles];
  t.same(titlesOf(await getFeed(node, ALL)), newestFirst.slice(0, 20), '/streams/$all is the head page');
});

t.test('forward from the start, then by previous links to the end', async (t) => {
  const start = await getFeed(node, `${ALL}/${START}/forward/3`);
  t.same(titlesOf(start), startTitles.slice(-3), 'the oldest events, newest first');
  t.same(Object.keys(linksOf(node, start.links)), ['self', 'first', 'previous', 'metadata'], 'from position 0: no last or next');

  const first = await getFeed(node, `${ALL}/${position(0)}/forward/3`);
  t.same(titlesOf(first), ['2@a', '1@a', '0@a'], 'newest first');
  const links = linksOf(node, first.links);
  t.equal(links.previous, `${ALL}/${position(3)}/forward/3`);
  t.equal(first.reply.headers.get('cache-control'), 'max-age=31536000, private', 'a full page never changes');

  const second = await getFeed(node, links.previous);
  t.same(titlesOf(second), ['3@a', '1@b', '0@b']);
  t.equal(linksOf(node, second.links).last, `${ALL}/${START}/forward/3`);
  t.equal(linksOf(node, second.links).next, `${ALL}/${position(3)}/backward/3`, 'next: back from the oldest event on the page');
  const back = await getFeed(node, linksOf(node, second.links).next);
  t.same(titlesOf(back), ['2@a', '1@a', '0@a'], 'next goes back to what came before');

  const third = await getFeed(node, linksOf(node, second.links).previous);
  t.same(titlesOf(third), ['4@a']);
  t.match(third.reply.headers.get('etag'), /^"\d+;-?\d+"$/, 'a partial page is revalidated');
  const end: JsonFeed = await getFeed(node, linksOf(node, third.links).previous);
  t.same(end.entries, []);
  t.notOk(linksOf(node, end.links).previous, 'caught up');
});

t.test('XML $all feeds parse', async (t) => {
  const reply = await get(node, `${ALL}/head/backward/2`, { accept: 'application/atom+xml' });
  const feed = parseXml(reply.text).feed;
  t.equal(feed.title, 'All events');
  t.same(feed.entry.map((entry: { title: string }) => entry.title), ['4@a', '3@a']);
});

t.test('bad positions and counts are coded 400s', async (t) => {
  const misaligned = formatAllPosition(records[1].logPosition + 1);
  const halves = position(1).slice(0, 16) + position(2).slice(16);
  for (const path of [
    `${ALL}/xyz/forward/3`, `${ALL}/${START.slice(1)}/forward/3`, `${ALL}/${START}0/backward/3`, `${ALL}/${START.replace(/0$/, 'G')}/forward/3`,
    `${ALL}/head/forward/3`, `${ALL}/${halves}/forward/3`, `${ALL}/${misaligned}/forward/3`, `${ALL}/${misaligned}/backward/3`,
    `${ALL}/${START}/forward/0`, `${ALL}/${START}/forward/5000`, `${ALL}/head/backward/x`, `${ALL}/0`, `${ALL}/-1/3`,
  ]) {
    const reply = await get(node, path, { accept: 'application/json' });
    t.equal(reply.status, 400, path);
    t.equal(JSON.parse(reply.text).code, 'SVCDB_ERR_HTTP_PATH_INVALID', path);
  }
});
