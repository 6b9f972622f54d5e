// Single events in every media type, the description document, deleted and missing streams, and
// metadata reads.
import { randomUUID } from 'node:crypto';
import { adminFetch } from '../helpers/auth.js';
import t from 'tap';
import type { NewEvent } from '../../src/storage/streams/write-types.js';
import { newEvents } from '../helpers/engine.js';
import { startNode } from '../helpers/node.js';
import { ATOM_JSON, ATOM_XML, get, parseXml } from '../helpers/read.js';

const node = await startNode(t);

function event(eventType: string, data: string | Buffer, metadata: string, isJson: boolean): NewEvent {
  return { eventId: randomUUID(), eventType, data: Buffer.from(data), metadata: Buffer.from(metadata), isJson };
}

const BINARY = Buffer.from([0, 1, 2, 0xfe, 0xff]);
await node.engine.append('ev', -2, [
  event('Json', '{"a":"1"}', '{"m":1}', true),
  event('Text', 'hello <world>', '', false),
  event('Bytes', BINARY, '', false),
  event('Empty', '', '', false),
]);

t.test('no Accept (or */*): the Atom entry in XML, with the content of a JSON event', async (t) => {
  for (const headers of [{}, { accept: '*/*' }, { accept: ATOM_XML }] as Array<Record<string, string>>) {
    const reply = await get(node, '/streams/ev/0', headers);
    t.equal(reply.status, 200);
    t.equal(reply.headers.get('content-type'), 'application/atom+xml; charset=utf-8');
    const entry = parseXml(reply.text).entry[0];
    t.equal(entry.title, '0@ev');
    t.equal(entry.summary, 'Json');
    t.equal(entry.content['@_type'], 'application/xml');
    t.equal(entry.content.data.a, '1');
    t.equal(entry.content.metadata.m, '1');
  }
});

t.test('the Atom entry in JSON always has the content of a JSON event; ?embed=rich adds the rich fields', async (t) => {
  const plain = JSON.parse((await get(node, '/streams/ev/0', { accept: ATOM_JSON })).text);
  t.equal(plain.title, '0@ev');
  t.equal(plain.id, `${node.url}/streams/ev/0`);
  t.same(plain.content.data, { a: '1' });
  t.same(plain.content.metadata, { m: 1 });
  t.notOk('isJson' in plain);
  const rich = JSON.parse((await get(node, '/streams/ev/0?embed=rich', { accept: ATOM_JSON })).text);
  t.match(rich, { isJson: true, eventType: 'Json', streamId: 'ev', content: { data: { a: '1' } } });
  const text = JSON.parse((await get(node, '/streams/ev/1', { accept: ATOM_JSON })).text);
  t.notOk('content' in text, 'no content for a non-JSON event');
});

t.test('application/json is the data alone; non-JSON data as a JSON string', async (t) => {
  const json = await get(node, '/streams/ev/0', { accept: 'application/json' });
  t.equal(json.headers.get('content-type'), 'application/json; charset=utf-8');
  t.same(JSON.parse(json.text), { a: '1' });
  t.equal(JSON.parse((await get(node, '/streams/ev/1', { accept: 'application/json' })).text), 'hello <world>');
});

t.test('vnd.svc.event+json and +xml: the event document', async (t) => {
  const document = JSON.parse((await get(node, '/streams/ev/0', { accept: 'application/vnd.svc.event+json' })).text);
  t.same(document, {
    eventStreamId: 'ev', eventNumber: 0, eventType: 'Json', eventId: node.engine.readEvent('ev', 0).event!.eventId, data: { a: '1' }, metadata: { m: 1 },
  });
  const xml = parseXml((await get(node, '/streams/ev/1', { accept: 'application/vnd.svc.event+xml' })).text);
  t.equal(xml.event.eventType, 'Text');
  t.equal(xml.event.data, 'hello <world>');
});

t.test('text/xml and application/xml: <data>', async (t) => {
  for (const accept of ['text/xml', 'application/xml']) {
    const json = await get(node, '/streams/ev/0', { accept });
    t.equal(json.headers.get('content-type'), `${accept}; charset=utf-8`);
    t.equal(json.text, '<data><a>1</a></data>');
    t.equal((await get(node, '/streams/ev/1', { accept })).text, '<data>hello &lt;world&gt;</data>');
    t.equal((await get(node, '/streams/ev/3', { accept })).text, '<data />', 'empty data');
  }
});

t.test('application/octet-stream: the raw bytes', async (t) => {
  const response = await adminFetch(`${node.url}/streams/ev/2`, { headers: { accept: 'application/octet-stream' } });
  t.equal(response.status, 200);
  t.equal(response.headers.get('content-type'), 'application/octet-stream');
  t.same(Buffer.from(await response.arrayBuffer()), BINARY);
});

t.test('head is the last event, revalidated; a numbered event is cached for a year', async (t) => {
  const head = await get(node, '/streams/ev/head', { accept: 'application/vnd.svc.event+json' });
  t.equal(JSON.parse(head.text).eventNumber, 3);
  t.match(head.headers.get('etag'), /^"3;-?\d+"$/);
  t.equal(head.headers.get('cache-control'), 'max-age=0, no-cache, must-revalidate');
  const again = await get(node, '/streams/ev/head', { accept: 'application/vnd.svc.event+json', 'if-none-match': head.headers.get('etag')! });
  t.equal(again.status, 304);
  const numbered = await get(node, '/streams/ev/0', { accept: 'application/json' });
  t.equal(numbered.headers.get('cache-control'), 'max-age=31536000, private');
  t.equal(numbered.headers.get('vary'), 'Accept');
  t.equal(numbered.headers.get('etag'), null);
});

t.test('missing events and streams are 404 with a code; an unoffered type is 406', async (t) => {
  const event = await get(node, '/streams/ev/99', { accept: 'application/json' });
  t.equal(event.status, 404);
  t.equal(JSON.parse(event.text).code, 'SVCDB_ERR_EVENT_NOT_FOUND');
  const stream = await get(node, '/streams/nope/0', { accept: 'application/json' });
  t.equal(stream.status, 404);
  t.equal(stream.statusText, 'Not Found');
  t.equal(JSON.parse(stream.text).code, 'SVCDB_ERR_STREAM_NOT_FOUND');
  const image = await get(node, '/streams/ev/0', { accept: 'image/png' });
  t.equal(image.status, 406);
  t.equal(JSON.parse(image.text).code, 'SVCDB_ERR_HTTP_NOT_ACCEPTABLE');
  const format = await get(node, '/streams/ev/0?format=yaml');
  t.equal(format.status, 406);
});

t.test('the description document: 200 when asked for, 406 with the same body when no type is named', async (t) => {
  const asked = await get(node, '/streams/ev', { accept: 'application/vnd.svc.streamdesc+json' });
  t.equal(asked.status, 200);
  t.equal(asked.statusText, 'Description Document');
  t.equal(asked.headers.get('content-type'), 'application/vnd.svc.streamdesc+json; charset=utf-8');
  const document = JSON.parse(asked.text);
  t.same(document, {
    title: "Description document for 'ev'",
    description: 'The description document will be presented when no accept header is present or it was requested',
    _links: {
      self: { href: '/streams/ev', supportedContentTypes: ['application/vnd.svc.streamdesc+json'] },
      stream: { href: '/streams/ev', supportedContentTypes: ['application/atom+xml', 'application/vnd.svc.atom+json'] },
    },
  });
  for (const [path, headers] of [['/streams/ev', {}], ['/streams/ev', { accept: '*/*' }], ['/streams/ev/0/forward/20', {}]] as const) {
    const reply = await get(node, path, headers);
    t.equal(reply.status, 406, `${path} ${JSON.stringify(headers)}`);
    t.same(JSON.parse(reply.text), document);
  }
});

t.test('a hard-deleted stream is 410 Deleted; a soft-deleted one 404', async (t) => {
  await node.engine.append('gone', -2, newEvents(3));
  await node.engine.deleteStream('gone', -2, true);
  for (const path of ['/streams/gone', '/streams/gone/0', '/streams/gone/0/forward/20', '/streams/gone/head/backward/5', '/streams/gone/metadata']) {
    const reply = await get(node, path, { accept: ATOM_JSON });
    t.equal(reply.status, 410, path);
    t.equal(reply.statusText, 'Deleted');
    t.equal(JSON.parse(reply.text).code, 'SVCDB_ERR_STREAM_DELETED');
  }
  await node.engine.append('soft', -2, newEvents(3));
  await node.engine.deleteStream('soft', -2, false);
  for (const path of ['/streams/soft', '/streams/soft/0', '/streams/soft/0/forward/20']) {
    const reply = await get(node, path, { accept: ATOM_JSON });
    t.equal(reply.status, 404, path);
    t.equal(JSON.parse(reply.text).code, 'SVCDB_ERR_STREAM_NOT_FOUND');
  }
  const metadata = await get(node, '/streams/soft/metadata', { accept: 'application/json' });
  t.equal(metadata.status, 200, 'a soft-deleted stream still has its metadata');
  t.ok('$tb' in JSON.parse(metadata.text));
});

t.test('metadata reads', async (t) => {
  await node.engine.append('meta', -2, newEvents(1));
  await node.engine.setStreamMetadata('meta', -2, { $maxCount: 10, custom: 'x' });
  const json = await get(node, '/streams/meta/metadata', { accept: 'application/json' });
  t.equal(json.status, 200);
  t.same(JSON.parse(json.text), { $maxCount: 10, custom: 'x' }, 'application/json: the metadata object');
  const entry = JSON.parse((await get(node, '/streams/meta/metadata', { accept: ATOM_JSON })).text);
  t.equal(entry.title, '0@$$meta');
  t.same(entry.content.data, { $maxCount: 10, custom: 'x' });
  const numbered = await get(node, '/streams/meta/metadata/0', { accept: 'application/json' });
  t.same(JSON.parse(numbered.text), { $maxCount: 10, custom: 'x' }, '/metadata/{n}: that event of $$s');

  await node.engine.append('nometa', -2, newEvents(1));
  const none = await get(node, '/streams/nometa/metadata', { accept: 'application/json' });
  t.equal(none.status, 200);
  t.same(JSON.parse(none.text), {}, 'a stream without metadata: {}');
  const noneXml = await get(node, '/streams/nometa/metadata', { accept: 'application/xml' });
  t.equal(noneXml.status, 200);
  t.equal(noneXml.text, '', 'and an empty body in XML');

  const missing = await get(node, '/streams/never-written/metadata', { accept: 'application/json' });
  t.equal(missing.status, 404);
  t.equal(JSON.parse(missing.text).code, 'SVCDB_ERR_STREAM_NOT_FOUND');

  const ofMetadata = await get(node, '/streams/%24%24meta/metadata', { accept: 'application/json' });
  t.equal(ofMetadata.status, 400);
  t.equal(JSON.parse(ofMetadata.text).code, 'SVCDB_ERR_STREAM_INVALID_NAME');
  t.equal((await get(node, '/streams/%24%24meta/metadata/0/forward/20', { accept: ATOM_JSON })).status, 400);

  const allMetadata = await get(node, '/streams/%24all/metadata', { accept: 'application/json' });
  t.equal(allMetadata.status, 200, '$all always exists');
  t.same(JSON.parse(allMetadata.text), {});
});
