// Malformed read requests: every bad event number, count, header, media type or path is a 4xx
// with a code, and no client input is ever answered with a 5xx.
import t, { type Test } from 'tap';
import { adminFetch } from '../helpers/auth.js';
import { newEvents } from '../helpers/engine.js';
import { startNode } from '../helpers/node.js';
import { ATOM_JSON, get, getFeed } from '../helpers/read.js';

const node = await startNode(t);
await node.engine.append('s', -2, newEvents(5));

async function expectCode(t: Test, path: string, status: number, code: string, headers: Record<string, string> = { accept: ATOM_JSON }) {
  const reply = await get(node, path, headers);
  t.equal(reply.status, status, `${path} ${JSON.stringify(headers)}: status`);
  t.equal(JSON.parse(reply.text || '{}').code, code, `${path}: code`);
}

t.test('bad event numbers', async (t) => {
  // One past the largest 64-bit event number: event numbers are int64, as the reference's.
  for (const bad of ['x', '-1', '1e3', '0x10', '1.0', '%20', '9223372036854775808', 'HEAD']) {
    await expectCode(t, `/streams/s/${bad}`, 400, 'SVCDB_ERR_HTTP_PATH_INVALID');
    await expectCode(t, `/streams/s/${bad}/backward/5`, 400, 'SVCDB_ERR_HTTP_PATH_INVALID');
    await expectCode(t, `/streams/s/${bad}/forward/5`, 400, 'SVCDB_ERR_HTTP_PATH_INVALID');
    await expectCode(t, `/streams/s/metadata/${bad}/forward/5`, 400, 'SVCDB_ERR_HTTP_PATH_INVALID');
  }
  await expectCode(t, '/streams/s/head/forward/5', 400, 'SVCDB_ERR_HTTP_PATH_INVALID');
});

t.test('a 64-bit event number past the end reads like any number past the end', async (t) => {
  const huge = '99999999999999999';
  await expectCode(t, `/streams/s/${huge}`, 404, 'SVCDB_ERR_EVENT_NOT_FOUND');
  for (const direction of ['backward', 'forward']) {
    const far = await get(node, `/streams/s/${huge}/${direction}/5`, { accept: ATOM_JSON });
    const past = await get(node, `/streams/s/1000/${direction}/5`, { accept: ATOM_JSON });
    t.equal(far.status, past.status, `${direction}: the same answer as a small number past the end`);
  }
});

t.test('a path that is not valid percent-encoding, or a segment too long for a stream name, is a coded 400', async (t) => {
  for (const path of ['/streams/%zz', '/streams/%', '/streams/s%2/0', '/users/%E0%A4%A', `/streams/${'x'.repeat(3200)}`]) {
    await expectCode(t, path, 400, 'SVCDB_ERR_HTTP_PATH_INVALID');
  }
});

t.test('bad counts: 0, above 4096, not a number', async (t) => {
  for (const bad of ['0', '5000', '4097', 'x', '-5', '2.5', '1e2']) {
    await expectCode(t, `/streams/s/head/backward/${bad}`, 400, 'SVCDB_ERR_HTTP_PATH_INVALID');
    await expectCode(t, `/streams/s/0/forward/${bad}`, 400, 'SVCDB_ERR_HTTP_PATH_INVALID');
    await expectCode(t, `/streams/s/4/${bad}`, 400, 'SVCDB_ERR_HTTP_PATH_INVALID');
  }
  t.equal((await getFeed(node, '/streams/s/0/forward/4096')).entries.length, 5, '4096 is allowed');
  t.equal((await getFeed(node, '/streams/s/0/forward/1')).entries.length, 1, '1 is allowed');
});

t.test('a bad embed is ignored; repeated query values take the first', async (t) => {
  t.equal((await get(node, '/streams/s?embed=%00%FF', { accept: ATOM_JSON })).status, 200);
  t.equal((await get(node, '/streams/s?embed=constructor', { accept: ATOM_JSON })).status, 200);
  const feed = await getFeed(node, '/streams/s?embed=rich&embed=none');
  t.ok('isJson' in feed.entries[0]);
  await expectCode(t, '/streams/s?format=json&format=xml', 406, 'SVCDB_ERR_HTTP_NOT_ACCEPTABLE', {});
});

t.test('bad headers', async (t) => {
  await expectCode(t, '/streams/s/0/forward/5', 400, 'SVCDB_ERR_HTTP_HEADER_INVALID', { accept: ATOM_JSON, 'svc-longpoll': 'soon' });
  await expectCode(t, '/streams/s', 400, 'SVCDB_ERR_HTTP_HEADER_INVALID', { accept: ATOM_JSON, 'svc-resolvelinktos': 'yes' });
  await expectCode(t, '/streams/s', 400, 'SVCDB_ERR_HTTP_HEADER_INVALID', { accept: ATOM_JSON, 'svc-requireleader': 'maybe' });
  await expectCode(t, '/streams/s/0', 400, 'SVCDB_ERR_HTTP_HEADER_INVALID', { accept: 'application/json', 'svc-requiremaster': '1' });
  t.equal((await get(node, '/streams/s', { accept: ATOM_JSON, 'svc-requireleader': 'True' })).status, 200, 'a single node is the leader');
  await expectCode(t, '/streams/s', 406, 'SVCDB_ERR_HTTP_NOT_ACCEPTABLE', { accept: 'image/png' });
  await expectCode(t, '/streams/s', 406, 'SVCDB_ERR_HTTP_NOT_ACCEPTABLE', { accept: 'garbage///' });
  await expectCode(t, '/streams/s/0', 406, 'SVCDB_ERR_HTTP_NOT_ACCEPTABLE', { accept: 'image/png' });
});

t.test('wrong methods are 405', async (t) => {
  for (const [method, path] of [['PUT', '/streams/s/0'], ['POST', '/streams/s/0/forward/5'], ['DELETE', '/streams/s/metadata/0'], ['PATCH', '/streams/s/head/backward/5']]) {
    const response = await adminFetch(`${node.url}${path}`, { method });
    t.equal(response.status, 405, `${method} ${path}`);
    t.equal(((await response.json()) as { code: string }).code, 'SVCDB_ERR_HTTP_METHOD_NOT_ALLOWED');
  }
});

t.test('no client input gets a 5xx', async (t) => {
  const paths = [
    '/streams/%24%24%24', '/streams/%24', '/streams/%00', '/streams/s%2Fx/0', '/streams/s/metadata/metadata',
    '/streams/s/incoming/0', '/streams/s/0/sideways/5', '/streams/%24all/head/head/5', '/streams/%24all/metadata/0',
    '/streams/%24all/metadata/head/backward/5', '/streams/s/9007199254740991', '/streams/s/9007199254740991/forward/4096',
    '/streams/s/9007199254740990/forward/4096', '/streams/s/9007199254740991/backward/4096', '/streams/%24all/FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF/forward/5',
    '/streams/%24all/001FFFFFFFFFFFFF001FFFFFFFFFFFFF/backward/5', '/streams/%24all/001FFFFFFFFFFFFF001FFFFFFFFFFFFF/forward/5',
  ];
  for (const path of paths) {
    for (const accept of [ATOM_JSON, 'application/atom+xml', 'application/octet-stream', '']) {
      const reply = await get(node, path, accept ? { accept } : {});
      t.ok(reply.status < 500, `${path} (${accept || 'no Accept'}): ${reply.status}`);
      if (reply.status >= 400 && reply.status !== 406) t.match(JSON.parse(reply.text).code, /^SVCDB_ERR_/);
    }
  }
});

// Regression: JSON nested deeper than the serializers' stack allows was a 500 on reads.
t.test('deeply nested JSON data is read back as sent, not a 5xx', async (t) => {
  const deep = `${'['.repeat(12_000)}${']'.repeat(12_000)}`;
  await node.engine.append('deep', -2, [{ ...newEvents(1)[0], data: Buffer.from(deep), metadata: Buffer.from(deep.slice(6_000, -6_000)) }]);
  for (const accept of ['application/json', 'application/vnd.svc.event+json', ATOM_JSON, 'application/atom+xml', 'application/xml', 'application/vnd.svc.event+xml']) {
    const reply = await get(node, '/streams/deep/0', { accept });
    t.equal(reply.status, 200, accept);
  }
  for (const embed of ['content', 'body', 'pretty', 'tryharder']) {
    t.equal((await get(node, `/streams/deep?embed=${embed}`, { accept: ATOM_JSON })).status, 200, embed);
    t.equal((await get(node, `/streams/deep?embed=${embed}`, { accept: 'application/atom+xml' })).status, 200, `${embed} in XML`);
  }
  t.ok((await get(node, '/streams/deep/0', { accept: 'application/json' })).text === deep, 'the data as sent, byte for byte');
});
