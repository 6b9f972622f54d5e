// Listing groups and their details, in JSON and XML, with the wire note's fields.
import t from 'tap';
import { adminFetch, createUser } from '../helpers/auth.js';
import { startNode } from '../helpers/node.js';
import { ack, appendEvents, groupUrl, info, mustCreateGroup, nack, readableByAdminsOnly, take } from '../helpers/subscriptions.js';

t.test('GET /subscriptions and /subscriptions/{stream} list groups with links and counts', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 'a', 'g1');
  await mustCreateGroup(node.url, 'a', 'g2');
  await mustCreateGroup(node.url, 'b', 'g1');
  await appendEvents(node.url, 'a', 3);
  const taken = await take(node.url, 'a', 'g1', 2, { consumer: 'c1' });
  await ack(node.url, 'a', 'g1', [taken.ids[0]]);
  const user = await createUser(node.url, { loginName: 'u', password: 'pw' });
  const all = await adminFetch(`${node.url}/subscriptions`, { headers: { authorization: user } });
  t.equal(all.status, 200, 'any user may list');
  const list = await all.json() as Array<Record<string, unknown>>;
  t.same(list.map((item) => `${String(item.eventStreamId)}/${String(item.groupName)}`), ['a/g1', 'a/g2', 'b/g1']);
  t.match(list[0], {
    links: [{ href: `${groupUrl(node.url, 'a', 'g1')}/info`, rel: 'detail' }],
    eventStreamId: 'a', groupName: 'g1',
    parkedMessageUri: `${node.url}/streams/%24persistentsubscription-a%3A%3Ag1-parked`,
    getMessagesUri: `${groupUrl(node.url, 'a', 'g1')}/1`,
    status: String, averageItemsPerSecond: Number, totalItemsProcessed: 1, lastProcessedEventNumber: 0,
    lastCheckpointedEventPosition: '-1', lastKnownEventNumber: 2, lastKnownEventPosition: '2',
    connectionCount: 1, totalInFlightMessages: 1,
  });
  const ofA = await (await adminFetch(`${node.url}/subscriptions/a`)).json() as Array<{ groupName: string }>;
  t.same(ofA.map((item) => item.groupName), ['g1', 'g2']);
  const none = await adminFetch(`${node.url}/subscriptions/zzz`);
  t.equal(none.status, 404);
  t.equal((await none.json() as { code: string }).code, 'SVCDB_ERR_SUBSCRIPTION_NOT_FOUND');
  t.equal((await fetch(`${node.url}/subscriptions`)).status, 401, 'anonymous may not list');
});

t.test('info has the config, counts, parked count and connections', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 's', 'g', { maxRetryCount: 3 });
  await appendEvents(node.url, 's', 5);
  const taken = await take(node.url, 's', 'g', 3, { consumer: 'worker-1' });
  await nack(node.url, 's', 'g', [taken.ids[0]], 'Park');
  await ack(node.url, 's', 'g', [taken.ids[1]]);
  let details = await info(node.url, 's', 'g');
  for (let i = 0; i < 100 && details.parkedMessageCount !== 1; i++) details = await info(node.url, 's', 'g');
  t.match(details, {
    links: [{ rel: 'detail' }, { href: `${groupUrl(node.url, 's', 'g')}/replayParked`, rel: 'replayParked' }],
    config: { maxRetryCount: 3, startFrom: 0, startPosition: '0', namedConsumerStrategy: 'RoundRobin' },
    eventStreamId: 's', groupName: 'g', status: 'Live', totalItemsProcessed: 1, countSinceLastMeasurement: Number,
    lastProcessedEventNumber: 1, lastKnownEventNumber: 4, readBufferCount: 2, retryBufferCount: 0,
    totalInFlightMessages: 1, outstandingMessagesCount: 1, parkedMessageCount: 1,
  });
  t.match(details.connections, [{
    from: /^127\.0\.0\.1:\d+$/, username: 'admin', totalItemsProcessed: 1, extraStatistics: [],
    availableSlots: 2, inFlightMessages: 1, connectionName: 'worker-1',
  }]);
});

t.test('lists and info in XML name their elements in PascalCase, as the reference does', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 's', 'g');
  const list = await adminFetch(`${node.url}/subscriptions`, { headers: { accept: 'text/xml' } });
  t.equal(list.status, 200);
  t.match(list.headers.get('content-type'), /^text\/xml/);
  const xml = await list.text();
  t.match(xml, /^<\?xml version="1\.0" encoding="utf-8"\?><subscriptions><subscription><Links><Href>[^<]+\/info<\/Href><Rel>detail<\/Rel><\/Links><EventStreamId>s<\/EventStreamId><GroupName>g<\/GroupName><ParkedMessageUri>[^<]+<\/ParkedMessageUri><GetMessagesUri>[^<]+<\/GetMessagesUri><Status>Live<\/Status>/);
  t.match(xml, '<LastKnownEventNumber>-1</LastKnownEventNumber><LastKnownEventPosition>-1</LastKnownEventPosition><ConnectionCount>0</ConnectionCount><TotalInFlightMessages>0</TotalInFlightMessages></subscription></subscriptions>');
  t.notMatch(xml, /<[a-z][A-Za-z]*>[^<]*<\/[a-z]/, 'no camelCase field element');
  const details = await adminFetch(`${groupUrl(node.url, 's', 'g')}/info?format=xml`);
  t.match(await details.text(), /<subscription>.*<Config>.*<BufferSize>500<\/BufferSize>.*<\/Config>.*<ParkedMessageCount>0<\/ParkedMessageCount>/);
  const json = await (await adminFetch(`${node.url}/subscriptions`)).json() as Array<Record<string, unknown>>;
  t.match(json[0], { eventStreamId: 's', groupName: 'g' }, 'JSON keeps camelCase');
});

t.test('lists and info show only the groups of streams the caller may read', async (t) => {
  const node = await startNode(t);
  await readableByAdminsOnly(node.url, 'secret');
  await mustCreateGroup(node.url, 'secret', 'g');
  await mustCreateGroup(node.url, 'open', 'g');
  const alice = await createUser(node.url, { loginName: 'alice', password: 'pw' });
  const all = await adminFetch(`${node.url}/subscriptions`, { headers: { authorization: alice } });
  t.equal(all.status, 200);
  t.same((await all.json() as Array<{ eventStreamId: string }>).map((item) => item.eventStreamId), ['open'], 'the group of secret is left out');
  const ofSecret = await adminFetch(`${node.url}/subscriptions/secret`, { headers: { authorization: alice } });
  t.equal(ofSecret.status, 401);
  t.equal((await ofSecret.json() as { code: string }).code, 'SVCDB_ERR_ACCESS_DENIED');
  const details = await adminFetch(`${groupUrl(node.url, 'secret', 'g')}/info`, { headers: { authorization: alice } });
  t.equal(details.status, 401);
  t.equal((await details.json() as { code: string }).code, 'SVCDB_ERR_ACCESS_DENIED');
  const missing = await adminFetch(`${groupUrl(node.url, 'secret', 'no-such-group')}/info`, { headers: { authorization: alice } });
  t.equal(missing.status, 401, 'the same answer whether the group exists or not');
  t.equal((await adminFetch(`${groupUrl(node.url, 'open', 'g')}/info`, { headers: { authorization: alice } })).status, 200, 'a group of a stream alice may read');
  const asAdmin = await (await adminFetch(`${node.url}/subscriptions`)).json() as Array<{ eventStreamId: string }>;
  t.same(asAdmin.map((item) => item.eventStreamId).sort(), ['open', 'secret'], 'an admin sees both');
  t.equal((await adminFetch(`${groupUrl(node.url, 'secret', 'g')}/info`)).status, 200);
});
