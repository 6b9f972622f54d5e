// The console's reading of feeds and event bodies: page links, `$>` links, and the JSON, text
// and hex views of stored bytes.
import t from 'tap';
import { defaultView, hexDump, prettyJson, renderBody } from '../../web/lib/body.js';
import { entryReference, linkTarget, navigation, pageOfLink, pagePath, viaLink, type Feed, type FeedEntry } from '../../web/lib/feed.js';

const bytes = (text: string) => new TextEncoder().encode(text);

t.test('a stream page path escapes the name and asks for bodies', async (t) => {
  t.equal(pagePath('a/b c'), '/streams/a%2Fb%20c/head/backward/20?embed=tryharder');
  t.equal(pagePath('$all', '0000000000000000000000000000000A', 'forward', 5), '/streams/%24all/0000000000000000000000000000000A/forward/5?embed=tryharder');
});

t.test('feed links become pages, and only page links do', async (t) => {
  t.same(pageOfLink('http://h:2113/streams/a%2Fb/4/backward/20'), { stream: 'a/b', from: '4', direction: 'backward' });
  t.same(pageOfLink('/streams/%24all/00000000000000000000000000000000/forward/20'), { stream: '$all', from: '00000000000000000000000000000000', direction: 'forward' });
  t.equal(pageOfLink('http://h/streams/x/metadata'), undefined);
  t.equal(pageOfLink('http://h/streams/x/4/sideways/20'), undefined);
  const feed: Feed = {
    title: 't', entries: [], links: [
      { uri: 'http://h/streams/x', relation: 'self' }, { uri: 'http://h/streams/x/head/backward/20', relation: 'first' },
      { uri: 'http://h/streams/x/0/forward/20', relation: 'last' }, { uri: 'http://h/streams/x/4/backward/20', relation: 'next' },
      { uri: 'http://h/streams/x/25/forward/20', relation: 'previous' },
    ],
  };
  t.same(navigation(feed), {
    newest: { stream: 'x', from: 'head', direction: 'backward' }, newer: { stream: 'x', from: '25', direction: 'forward' },
    older: { stream: 'x', from: '4', direction: 'backward' }, oldest: { stream: 'x', from: '0', direction: 'forward' },
  });
});

t.test('link events name their target; resolved entries name the link they came through', async (t) => {
  t.same(linkTarget('12@orders-1'), { eventNumber: '12', stream: 'orders-1' });
  t.same(linkTarget('0@a@b'), { eventNumber: '0', stream: 'a@b' }, 'the stream is everything after the first @');
  t.equal(linkTarget('not a link'), undefined);
  t.equal(linkTarget(undefined), undefined);
  const entry = (fields: Partial<FeedEntry>): FeedEntry => ({ title: '1@paged', id: '', updated: '', summary: 'e', links: [], ...fields });
  t.same(viaLink(entry({ streamId: 'paged', eventNumber: 1, positionStreamId: 'links', positionEventNumber: 0 })), { stream: 'links', eventNumber: '0' });
  t.equal(viaLink(entry({ streamId: 'paged', eventNumber: 1, positionStreamId: 'paged', positionEventNumber: 1 })), undefined);
  t.same(entryReference(entry({})), { eventNumber: '1', stream: 'paged' }, 'from the title when the entry has no rich fields');
});

t.test('bodies: JSON pretty-printed, text as stored, bytes in hex', async (t) => {
  t.equal(prettyJson('{"a":[1,2]}'), '{\n  "a": [\n    1,\n    2\n  ]\n}');
  t.equal(prettyJson('<script>'), undefined);
  t.equal(defaultView(bytes('{"a":1}')), 'json');
  t.equal(defaultView(bytes('<script>alert(1)</script>')), 'text');
  t.equal(defaultView(new Uint8Array([0xff, 0xfe, 0x00])), 'hex', 'bytes that are not UTF-8');
  t.equal(renderBody(bytes('<b>x</b>'), 'text'), '<b>x</b>', 'text is returned as it is, for a text node');
  t.equal(renderBody(bytes('{"a":1}'), 'json'), '{\n  "a": 1\n}');
  t.equal(renderBody(bytes('plain'), 'json'), 'plain', 'the JSON view of text that is not JSON shows the text');
  t.equal(hexDump(bytes('ABCDEFGHIJKLMNOPQ')), [
    '00000000  41 42 43 44 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50  ABCDEFGHIJKLMNOP',
    '00000010  51                                               Q',
  ].join('\n'));
  t.equal(hexDump(new Uint8Array([0, 0x7f, 0x20])), `00000000  ${'00 7f 20'.padEnd(47)}  .. `, 'unprintable bytes show as dots');
  t.equal(hexDump(new Uint8Array()), '');
});
