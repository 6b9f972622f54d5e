// A stream's description document (`application/vnd.svc.streamdesc+json`) links each persistent
// subscription group of the stream (`streamSubscription`), as the reference's does, and names
// none to a caller who may not read the stream.
import t from 'tap';
import { adminFetch, createUser } from '../helpers/auth.js';
import { startNode } from '../helpers/node.js';
import { appendEvents, mustCreateGroup, readableByAdminsOnly } from '../helpers/subscriptions.js';

const STREAM_DESC = 'application/vnd.svc.streamdesc+json';
const COMPETING = ['application/vnd.svc.competingatom+xml', 'application/vnd.svc.competingatom+json'];

interface Description {
  title: string;
  _links: Record<string, unknown>;
}

t.test('a streamSubscription link per group of the stream; none for a stream without groups', async (t) => {
  const node = await startNode(t);
  await appendEvents(node.url, 'orders', 1);
  await appendEvents(node.url, 'other', 1);
  await mustCreateGroup(node.url, 'orders', 'billing');
  await mustCreateGroup(node.url, 'orders', 'a b');
  await mustCreateGroup(node.url, 'other-stream', 'elsewhere');
  const response = await adminFetch(`${node.url}/streams/orders`, { headers: { accept: STREAM_DESC } });
  t.equal(response.status, 200);
  t.match(response.headers.get('content-type'), /^application\/vnd\.svc\.streamdesc\+json/);
  const description = await response.json() as Description;
  t.same(description._links, {
    self: { href: '/streams/orders', supportedContentTypes: [STREAM_DESC] },
    stream: { href: '/streams/orders', supportedContentTypes: ['application/atom+xml', 'application/vnd.svc.atom+json'] },
    streamSubscription: [
      { href: '/subscriptions/orders/billing', supportedContentTypes: COMPETING },
      { href: '/subscriptions/orders/a%20b', supportedContentTypes: COMPETING },
    ],
  });
  const unnamed = await adminFetch(`${node.url}/streams/orders`, { headers: { accept: '*/*' } });
  t.equal(unnamed.status, 406, 'no media type named: the same document with 406');
  t.same((await unnamed.json() as Description)._links.streamSubscription, description._links.streamSubscription);
  const other = await (await adminFetch(`${node.url}/streams/other`, { headers: { accept: STREAM_DESC } })).json() as Description;
  t.notOk('streamSubscription' in other._links, 'no groups: no streamSubscription link');
});

t.test('a caller who may not read the stream is not told its groups', async (t) => {
  const node = await startNode(t);
  await readableByAdminsOnly(node.url, 'secret');
  await mustCreateGroup(node.url, 'secret', 'hidden-group');
  const alice = await createUser(node.url, { loginName: 'alice', password: 'pw' });
  const response = await adminFetch(`${node.url}/streams/secret`, { headers: { accept: STREAM_DESC, authorization: alice } });
  t.notMatch(await response.text(), 'hidden-group');
  const admin = await (await adminFetch(`${node.url}/streams/secret`, { headers: { accept: STREAM_DESC } })).json() as Description;
  t.same(admin._links.streamSubscription, [{ href: '/subscriptions/secret/hidden-group', supportedContentTypes: COMPETING }], 'an admin is');
});
