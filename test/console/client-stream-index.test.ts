// Gathering stream names from pages of $all read backwards: newest change first, creations in
// the order they were met, and the scan ends at the start of the log.
import t from 'tap';
import type { Feed, FeedEntry } from '../../web/lib/feed.js';
import { EMPTY_SCAN, scanPage, scanStart } from '../../web/lib/stream-index.js';

const entry = (streamId: string, eventNumber: number): FeedEntry => ({
  title: `${eventNumber}@${streamId}`, id: `id-${streamId}-${eventNumber}`, updated: `t${eventNumber}`, summary: 'E', streamId, eventNumber, links: [],
});
const page = (entries: FeedEntry[], next?: string): Feed => ({ title: 'All events', links: next ? [{ uri: next, relation: 'next' }] : [], entries });

t.test('pages read backwards give streams by last change and by creation', async (t) => {
  const first = scanPage(EMPTY_SCAN, page([entry('a', 3), entry('b', 0), entry('a', 2)], '/older'));
  t.same(first.streams.map((summary) => [summary.stream, summary.lastEventNumber]), [['a', '3'], ['b', '0']]);
  t.same(first.created.map((summary) => summary.stream), ['b']);
  t.equal(first.next, '/older');
  const second = scanPage(first, page([entry('c', 0), entry('a', 0)]));
  t.same(second.streams.map((summary) => summary.stream), ['a', 'b', 'c']);
  t.same(second.created.map((summary) => summary.stream), ['b', 'c', 'a'], 'newest creation first');
  t.equal(second.created[2].lastEventNumber, '3', 'a created stream shows its newest event');
  t.equal(second.next, undefined, 'no older page: the start of the log');
  t.equal(scanPage(second, page([], '/again')).next, undefined, 'an empty page ends the scan');
});

t.test('the scan asks the node to filter', async (t) => {
  t.equal(scanStart('', false), '/streams/%24all/filtered/head/backward/100?embed=rich&exclude-system-events=true');
  t.equal(scanStart('orders-', true), '/streams/%24all/filtered/head/backward/100?embed=rich&context=streamid&type=prefix&data=orders-');
});
