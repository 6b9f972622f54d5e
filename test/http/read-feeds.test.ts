// Stream feeds over HTTP: the link formulas of the wire note on multi-page streams in both
// directions, entries newest first, headOfStream, the three feed media types, the metadata link.
import t from 'tap';
import { newEvents } from '../helpers/engine.js';
import { startNode } from '../helpers/node.js';
import { ATOM_XML, followLinks, get, getFeed, linksOf, parseXml, titlesOf } from '../helpers/read.js';

const node = await startNode(t);
await node.engine.append('s25', -2, newEvents(25));
await node.engine.append('s60', -2, newEvents(60));

function range(high: number, low: number, stream: string): string[] {
  const titles: string[] = [];
  for (let n = high; n >= low; n--) titles.push(`${n}@${stream}`);
  return titles;
}

t.test('25 events: the head page and the last page backward', async (t) => {
  const head = await getFeed(node, '/streams/s25');
  t.same(linksOf(node, head.links), {
    self: '/streams/s25',
    first: '/streams/s25/head/backward/20',
    last: '/streams/s25/0/forward/20',
    next: '/streams/s25/4/backward/20',
    previous: '/streams/s25/25/forward/20',
    metadata: '/streams/s25/metadata',
  });
  t.same(head.links.map((link) => link.relation), ['self', 'first', 'last', 'next', 'previous', 'metadata'], 'link order');
  t.same(titlesOf(head), range(24, 5, 's25'), 'newest first');
  t.equal(head.title, "Event stream 's25'");
  t.equal(head.id, `${node.url}/streams/s25`);
  t.equal(head.streamId, 's25');
  t.equal(head.headOfStream, true);
  t.equal(head.selfUrl, `${node.url}/streams/s25`);
  t.match(head.eTag, /^24;-?\d+$/, 'the head page shows its ETag');
  t.match(head.updated, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/, 'ISO-8601 UTC');

  const last = await getFeed(node, '/streams/s25/4/backward/20');
  t.same(linksOf(node, last.links), {
    self: '/streams/s25', first: '/streams/s25/head/backward/20', previous: '/streams/s25/5/forward/20', metadata: '/streams/s25/metadata',
  }, 'no last or next once the oldest event is on the page');
  t.same(titlesOf(last), range(4, 0, 's25'));
  t.equal(last.headOfStream, false);
  t.equal(last.eTag, undefined, 'only the head page shows an ETag');
  t.equal(last.selfUrl, `${node.url}/streams/s25`, 'every backward page has selfUrl');

  const explicit = await getFeed(node, '/streams/s25/head/backward/20');
  t.same(titlesOf(explicit), titlesOf(head), '/head/backward/20 is the head page');
  const short = await getFeed(node, '/streams/s25/10/5');
  t.same(titlesOf(short), range(10, 6, 's25'), '/{event}/{count} reads backward');
  t.same(linksOf(node, short.links).next, '/streams/s25/5/backward/5');
});

t.test('25 events: forward pages, up to and past the end', async (t) => {
  const first = await getFeed(node, '/streams/s25/0/forward/20');
  t.same(linksOf(node, first.links), {
    self: '/streams/s25', first: '/streams/s25/head/backward/20', previous: '/streams/s25/20/forward/20', metadata: '/streams/s25/metadata',
  }, 'from 0: no last or next');
  t.same(titlesOf(first), range(19, 0, 's25'), 'forward pages list entries newest first too');
  t.equal(first.headOfStream, false);
  t.equal(first.selfUrl, undefined);

  const end = await getFeed(node, '/streams/s25/20/forward/20');
  t.same(linksOf(node, end.links), {
    self: '/streams/s25',
    first: '/streams/s25/head/backward/20',
    last: '/streams/s25/0/forward/20',
    next: '/streams/s25/19/backward/20',
    previous: '/streams/s25/25/forward/20',
    metadata: '/streams/s25/metadata',
  });
  t.same(titlesOf(end), range(24, 20, 's25'));
  t.equal(end.headOfStream, true, 'the read reached the end');

  const past = await getFeed(node, '/streams/s25/25/forward/20');
  t.same(linksOf(node, past.links), {
    self: '/streams/s25',
    first: '/streams/s25/head/backward/20',
    last: '/streams/s25/0/forward/20',
    next: '/streams/s25/24/backward/20',
    metadata: '/streams/s25/metadata',
  }, 'an empty page at the end has no previous link: caught up');
  t.same(past.entries, []);
  t.equal(past.headOfStream, true);
  t.equal(past.updated, '0001-01-01T00:00:00Z');
});

t.test('60 events, count 20: head, middle and last pages both ways', async (t) => {
  const cases: Array<[string, Record<string, string>, string[]]> = [
    ['/streams/s60', { last: '0/forward/20', next: '39/backward/20', previous: '60/forward/20' }, range(59, 40, 's60')],
    ['/streams/s60/39/backward/20', { last: '0/forward/20', next: '19/backward/20', previous: '40/forward/20' }, range(39, 20, 's60')],
    ['/streams/s60/19/backward/20', { previous: '20/forward/20' }, range(19, 0, 's60')],
    ['/streams/s60/0/forward/20', { previous: '20/forward/20' }, range(19, 0, 's60')],
    ['/streams/s60/20/forward/20', { last: '0/forward/20', next: '19/backward/20', previous: '40/forward/20' }, range(39, 20, 's60')],
    ['/streams/s60/40/forward/20', { last: '0/forward/20', next: '39/backward/20', previous: '60/forward/20' }, range(59, 40, 's60')],
    ['/streams/s60/60/forward/20', { last: '0/forward/20', next: '59/backward/20' }, []],
    ['/streams/s60/50/forward/20', { last: '0/forward/20', next: '49/backward/20', previous: '60/forward/20' }, range(59, 50, 's60')],
    ['/streams/s60/100/backward/20', { last: '0/forward/20', next: '80/backward/20', previous: '60/forward/20' }, range(59, 40, 's60')],
  ];
  for (const [path, expected, titles] of cases) {
    const feed = await getFeed(node, path);
    const want: Record<string, string> = { self: '/streams/s60', first: '/streams/s60/head/backward/20' };
    for (const [relation, tail] of Object.entries(expected)) want[relation] = `/streams/s60/${tail}`;
    want.metadata = '/streams/s60/metadata';
    t.same(linksOf(node, feed.links), want, `${path}: links`);
    t.same(titlesOf(feed), titles, `${path}: entries`);
  }
  t.equal((await getFeed(node, '/streams/s60/40/forward/20')).headOfStream, true, 'forward: headOfStream when the read reached the end');
  t.equal((await getFeed(node, '/streams/s60/20/forward/20')).headOfStream, false);
  t.equal((await getFeed(node, '/streams/s60/39/backward/20')).headOfStream, false, 'backward: headOfStream only for the head');
});

t.test('application/json is the same feed as atom+json; atom+xml is Atom 1.0 that parses', async (t) => {
  const atom = await getFeed(node, '/streams/s25/0/forward/3');
  const json = await get(node, '/streams/s25/0/forward/3', { accept: 'application/json' });
  t.equal(json.status, 200);
  t.equal(json.headers.get('content-type'), 'application/json; charset=utf-8');
  t.same(JSON.parse(json.text), JSON.parse(atom.reply.text));
  t.equal(atom.reply.headers.get('content-type'), 'application/vnd.svc.atom+json; charset=utf-8');

  const xml = await get(node, '/streams/s25/0/forward/3', { accept: ATOM_XML });
  t.equal(xml.status, 200);
  t.equal(xml.headers.get('content-type'), 'application/atom+xml; charset=utf-8');
  t.match(xml.text, /^<\?xml version="1.0" encoding="utf-8"\?><feed xmlns="http:\/\/www.w3.org\/2005\/Atom">/);
  const feed = parseXml(xml.text).feed;
  t.equal(feed.title, "Event stream 's25'");
  t.equal(feed.id, `${node.url}/streams/s25`);
  t.equal(feed.author.name, 'svcdb');
  t.same(feed.link.map((link: Record<string, string>) => link['@_rel']), ['self', 'first', 'previous', 'metadata']);
  t.same(feed.entry.map((entry: Record<string, string>) => entry.title), ['2@s25', '1@s25', '0@s25']);
  t.equal(feed.entry[0].summary, 'TestEvent');
  t.same(feed.entry[0].link.map((link: Record<string, string>) => link['@_rel']), ['edit', 'alternate']);
  t.equal(feed.streamId, undefined, 'no JSON-only fields in XML');

  const byFormat = await get(node, '/streams/s25/0/forward/3?format=atom', { accept: 'application/json' });
  t.equal(byFormat.headers.get('content-type'), 'application/atom+xml; charset=utf-8', '?format= overrides Accept');
  const byFormatJson = await get(node, '/streams/s25/0/forward/3?format=json');
  t.equal(byFormatJson.headers.get('content-type'), 'application/json; charset=utf-8');
});

t.test('XML escapes what it must: stream names, event types and data with markup', async (t) => {
  const stream = 'odd<&>"\'stream';
  await node.engine.append(stream, -2, [{ ...newEvents(1)[0], eventType: 'a<b>&"c"', data: Buffer.from('{"k<>":"v&\\u0001"}') }]);
  const reply = await get(node, `/streams/${encodeURIComponent(stream)}/0/forward/1?embed=content`, { accept: ATOM_XML });
  t.equal(reply.status, 200);
  const feed = parseXml(reply.text).feed;
  t.equal(feed.title, `Event stream '${stream}'`);
  t.equal(feed.entry[0].summary, 'a<b>&"c"');
  t.equal(feed.entry[0].content.data.k_x003C__x003E_, 'v&', 'a key that is no XML name is encoded; a control character dropped');
  const json = await getFeed(node, `/streams/${encodeURIComponent(stream)}`);
  t.equal(json.id, `${node.url}/streams/odd%3C%26%3E%22'stream`, 'stream names are escaped in URLs');
});

t.test('the metadata link is omitted for metadata streams; metadata feeds page $$s', async (t) => {
  await node.engine.setStreamMetadata('s25', -2, { custom: 1 });
  await node.engine.setStreamMetadata('s25', -2, { custom: 2 });
  const direct = await getFeed(node, '/streams/%24%24s25');
  t.equal(direct.title, "Event stream '$$s25'");
  t.equal(direct.id, `${node.url}/streams/%24%24s25`);
  t.notOk(linksOf(node, direct.links).metadata, 'no metadata link');
  t.same(titlesOf(direct), ['1@$$s25', '0@$$s25']);

  const forward = await getFeed(node, '/streams/s25/metadata/0/forward/1');
  t.same(linksOf(node, forward.links), {
    self: '/streams/%24%24s25', first: '/streams/%24%24s25/head/backward/1', previous: '/streams/%24%24s25/1/forward/1',
  });
  t.same(titlesOf(await getFeed(node, '/streams/s25/metadata/head/backward/5')), ['1@$$s25', '0@$$s25']);
  t.same(titlesOf(await getFeed(node, '/streams/s25/metadata/0/5')), ['0@$$s25']);
  t.same(titlesOf(await getFeed(node, '/streams/s25/metadata/1/forward/5')), ['1@$$s25']);
});

t.test('links honour X-Forwarded-* headers', async (t) => {
  const feed = await getFeed(node, '/streams/s25/4/backward/20', {
    'x-forwarded-proto': 'https', 'x-forwarded-host': 'db.example.com', 'x-forwarded-port': '8443', 'x-forwarded-prefix': '/svc',
  });
  t.equal(feed.id, 'https://db.example.com:8443/svc/streams/s25');
  t.equal(feed.entries[0].id, 'https://db.example.com:8443/svc/streams/s25/4');
});

// Regression: a forward page of a stream with $maxCount or $tb moved its window to the first
// visible event while its links kept the requested range, so each page repeated the same events;
// and the pages, changing with each append under $maxCount, were cacheable for a year.
t.test('$maxCount and $tb: forward pages followed from 0 show each event once', async (t) => {
  await node.engine.append('mc', -2, newEvents(26));
  await node.engine.setStreamMetadata('mc', -2, { $maxCount: 3 });
  await node.engine.append('tb', -2, newEvents(26));
  await node.engine.setStreamMetadata('tb', -2, { $tb: 23 });
  for (const stream of ['mc', 'tb']) {
    const pages = await followLinks(node, `/streams/${stream}/0/forward/5`, 'previous');
    const seen = pages.flatMap((page) => titlesOf(page).reverse());
    t.same(seen, ['23', '24', '25'].map((n) => `${n}@${stream}`), `${stream}: the visible events, each once, in order`);
    t.same(titlesOf(pages[0]), [], `${stream}: the page of events 0 to 4, all hidden, is empty`);
    t.equal(linksOf(node, pages[0].links).previous, `/streams/${stream}/5/forward/5`, `${stream}: and it is not the caught-up end`);
    t.same(titlesOf(await getFeed(node, `/streams/${stream}/20/forward/5`)), [`24@${stream}`, `23@${stream}`], `${stream}: a page holds only its own range`);
  }
  const capped = await getFeed(node, '/streams/mc/0/forward/5');
  t.equal(capped.reply.headers.get('cache-control'), 'max-age=0, no-cache, must-revalidate', 'under $maxCount an append changes a full page: revalidated');
  t.equal((await getFeed(node, '/streams/mc/15/backward/5')).reply.headers.get('cache-control'), 'max-age=0, no-cache, must-revalidate', 'backward too');
  t.equal((await getFeed(node, '/streams/tb/0/forward/5')).reply.headers.get('cache-control'), 'max-age=31536000, private', 'under $tb alone a full page changes only with the metadata');
});
