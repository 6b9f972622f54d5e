// text/html over HTTP: what a browser gets for feeds and single events. Pages show entries in
// full (feeds PrettyBody, single events TryHarder), navigate by the feed's links, escape every
// piece of event text, and come with a policy that lets nothing in them run.
import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { newEvent, newEvents } from '../helpers/engine.js';
import { startNode } from '../helpers/node.js';
import { get, type Reply } from '../helpers/read.js';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const node = await startNode(t);
await node.engine.append('shop', -2, [newEvent('OrderPlaced', { order: 7, lines: [{ sku: 'a', qty: 2 }] })]);
await node.engine.append('shop', -2, newEvents(24));
const hostile = '<script>alert(1)</script>';
await node.engine.append('evil', -2, [{
  eventId: randomUUID(), eventType: '<img src=x onerror=alert(2)>', data: Buffer.from(`{"html":"${hostile}"}`), metadata: Buffer.from(`"${hostile}"`), isJson: true,
}]);
await node.engine.append('text', -2, [{ eventId: randomUUID(), eventType: 'Raw', data: Buffer.from('{"parsed":"when tried harder"}'), metadata: Buffer.alloc(0), isJson: false }]);

function checkHtmlReply(t: Test, reply: Reply): void {
  t.equal(reply.status, 200, reply.text.slice(0, 200));
  t.equal(reply.headers.get('content-type'), 'text/html; charset=utf-8');
  t.match(reply.headers.get('content-security-policy'), /^default-src 'none'; style-src 'unsafe-inline'/);
  t.equal(reply.headers.get('x-content-type-options'), 'nosniff');
  t.match(reply.text, /^<!DOCTYPE html><html lang="en">/);
  t.notMatch(reply.text, /<script/i, 'no script element, whatever the events hold');
}

t.test('a browser gets a stream feed as a page, with entries in full and the links to page on', async (t) => {
  const reply = await get(node, '/streams/shop', { accept: BROWSER });
  checkHtmlReply(t, reply);
  t.match(reply.text, "<title>Event stream &#39;shop&#39;</title>");
  t.match(reply.text, /<a rel="next" href="http:\/\/127\.0\.0\.1:\d+\/streams\/shop\/4\/backward\/20">next<\/a>/);
  t.match(reply.text, /<a rel="last" href="[^"]+\/streams\/shop\/0\/forward\/20">last<\/a>/);
  t.equal((reply.text.match(/<article>/g) ?? []).length, 20, 'twenty entries');
  const older = await get(node, '/streams/shop/0/forward/20', { accept: BROWSER });
  checkHtmlReply(t, older);
  t.match(older.text, '<h2><a href="', 'entries link to their events');
  t.match(older.text, '<pre>{\n  &quot;order&quot;: 7,\n  &quot;lines&quot;: [', 'data pretty-printed, as PrettyBody, without ?embed');
  t.match(older.text, '<dt>Type</dt><dd>OrderPlaced</dd>');
});

t.test('event text is escaped everywhere it appears', async (t) => {
  for (const path of ['/streams/evil', '/streams/evil/0']) {
    const reply = await get(node, path, { accept: 'text/html' });
    checkHtmlReply(t, reply);
    t.notMatch(reply.text, /<img/, `${path}: the event type cannot make an element`);
    t.match(reply.text, '&lt;img src=x onerror=alert(2)&gt;', `${path}: the event type as text`);
    t.match(reply.text, '&lt;script&gt;alert(1)&lt;/script&gt;', `${path}: data and metadata as text`);
  }
});

t.test('a single event is shown at TryHarder: JSON found in raw data is shown parsed', async (t) => {
  const reply = await get(node, '/streams/text/0', { accept: BROWSER });
  checkHtmlReply(t, reply);
  t.match(reply.text, '<title>0@text</title>');
  t.match(reply.text, '<pre>{\n  &quot;parsed&quot;: &quot;when tried harder&quot;\n}</pre>');
  t.match(reply.text, /<a rel="edit" href="[^"]+\/streams\/text\/0">edit<\/a>/);
  t.equal(reply.headers.get('cache-control'), 'max-age=31536000, private', 'a numbered event never changes, as in every type');
});

t.test('$all, filtered $all and metadata have pages too', async (t) => {
  const all = await get(node, '/streams/%24all/head/backward/5', { accept: BROWSER });
  checkHtmlReply(t, all);
  t.match(all.text, '<title>All events</title>');
  const filtered = await get(node, '/streams/%24all/filtered?context=streamid&type=prefix&data=shop', { accept: BROWSER });
  checkHtmlReply(t, filtered);
  t.match(filtered.text, /href="[^"]+\/streams\/%24all\/filtered\/head\/backward\/20\?context=streamid&amp;type=prefix&amp;data=shop"/, 'the filter stays in the links, escaped for HTML');
  const none = await get(node, '/streams/shop/metadata', { accept: BROWSER });
  checkHtmlReply(t, none);
  t.match(none.text, 'The stream has no metadata.');
});

t.test('the head page revalidates as HTML, and other clients get what they got before', async (t) => {
  const first = await get(node, '/streams/shop', { accept: 'text/html' });
  const etag = first.headers.get('etag');
  t.ok(etag, 'the head page has an ETag');
  const again = await get(node, '/streams/shop', { accept: 'text/html', 'if-none-match': etag! });
  t.equal(again.status, 304);
  const json = await get(node, '/streams/shop', { accept: 'application/vnd.svc.atom+json', 'if-none-match': etag! });
  t.equal(json.status, 200, 'an HTML ETag does not validate another type');
  const noAccept = await get(node, '/streams/shop', { accept: '*/*' });
  t.equal(noAccept.status, 406, 'no type named: still the description document');
  const atom = await get(node, '/streams/shop/0', { accept: 'application/xml' });
  t.equal(atom.headers.get('content-type'), 'application/xml; charset=utf-8');
  t.equal(atom.headers.get('content-security-policy'), null, 'the policy is for HTML pages');
});
