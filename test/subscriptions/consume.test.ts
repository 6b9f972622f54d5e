// Consuming over HTTP: the competing-consumer feed (JSON and XML) with ack and nack links at
// every embed level, counts, ids and actions checked as coded 400s, the read right on the
// stream for consuming and acknowledging, links resolved or not, long polls, groups created
// before their stream, and where a group starts (startFrom -1, 0, N).
import t from 'tap';
import { adminFetch, createUser } from '../helpers/auth.js';
import { startNode } from '../helpers/node.js';
import { withDeadline } from '../helpers/wait.js';
import {
  ack, appendEvents, COMPETING_JSON, groupUrl, info, mustCreateGroup, post, take, takeResponse, type CompetingFeed,
} from '../helpers/subscriptions.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

t.test('the feed: one message by default, ack and nack links per entry, ackAll and nackAll', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 'orders', 'g1');
  const ids = await appendEvents(node.url, 'orders', 3);
  const single = await adminFetch(groupUrl(node.url, 'orders', 'g1'), { headers: { accept: COMPETING_JSON } });
  t.equal(single.status, 200);
  t.match(single.headers.get('content-type'), /^application\/vnd\.svc\.competingatom\+json/);
  const feed = await single.json() as CompetingFeed;
  const self = groupUrl(node.url, 'orders', 'g1');
  t.equal(feed.title, "Messages for 'orders/g1'");
  t.equal(feed.entries.length, 1);
  t.same(feed.links, [
    { uri: `${self}/ack?ids=${ids[0]}`, relation: 'ackAll' }, { uri: `${self}/nack?ids=${ids[0]}`, relation: 'nackAll' },
    { uri: `${self}/1`, relation: 'previous' }, { uri: self, relation: 'self' },
  ]);
  const entry = feed.entries[0];
  t.match(entry, { title: '0@orders', id: `${node.url}/streams/orders/0`, summary: 'Thing', retryCount: 0 });
  t.same(entry.links.map((link) => link.relation), ['edit', 'alternate', 'ack', 'nack']);
  t.equal(entry.links[2].uri, `${self}/ack/${ids[0]}`);
  t.equal(entry.links[3].uri, `${self}/nack/${ids[0]}`);
  const unknown = await takeResponse(node.url, 'orders', 'g2-missing', 1);
  t.equal(unknown.status, 404, 'an unknown group is 404');
  t.equal((await unknown.json() as { code: string }).code, 'SVCDB_ERR_SUBSCRIPTION_NOT_FOUND');
  await take(node.url, 'orders', 'g1', 2);
  const none = await take(node.url, 'orders', 'g1', 5);
  t.same(none.entries, []);
  t.same(none.feed.links.map((link) => link.relation), ['previous', 'self'], 'no ackAll or nackAll without entries');
});

t.test('every embed level keeps the ack and nack links and the retry count', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 's', 'g');
  await appendEvents(node.url, 's', 6);
  const expectations: Array<[string, (entry: Record<string, unknown>) => boolean]> = [
    ['none', (entry) => entry.content === undefined && entry.data === undefined],
    ['content', (entry) => (entry.content as { data: { n: number } } | undefined)?.data.n !== undefined],
    ['rich', (entry) => typeof entry.eventId === 'string' && entry.data === undefined],
    ['body', (entry) => typeof entry.data === 'string' && !entry.data.includes('\n')],
    ['pretty', (entry) => typeof entry.data === 'string'],
    ['tryharder', (entry) => typeof entry.data === 'string' && entry.isJson === true],
  ];
  for (const [embed, holds] of expectations) {
    const taken = await take(node.url, 's', 'g', 1, { embed });
    t.equal(taken.entries.length, 1, embed);
    const entry = taken.entries[0];
    t.ok(holds(entry), `${embed}: the level's fields`);
    t.equal(entry.retryCount, 0, `${embed}: retryCount`);
    t.same(entry.links.slice(2).map((link) => link.relation), ['ack', 'nack'], `${embed}: ack and nack links`);
    t.match(taken.ids[0], UUID);
  }
});

t.test('the XML feed carries retryCount and the same links', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 's', 'g');
  const [id] = await appendEvents(node.url, 's', 1);
  const response = await adminFetch(`${groupUrl(node.url, 's', 'g')}/1?embed=content`, { headers: { accept: 'application/vnd.svc.competingatom+xml' } });
  t.equal(response.status, 200);
  t.match(response.headers.get('content-type'), /^application\/vnd\.svc\.competingatom\+xml/);
  const xml = await response.text();
  t.match(xml, /^<\?xml version="1\.0" encoding="utf-8"\?><feed xmlns="http:\/\/www\.w3\.org\/2005\/Atom"><title>Messages for 's\/g'<\/title>/);
  t.match(xml, '<retryCount>0</retryCount>');
  t.match(xml, `<link href="${groupUrl(node.url, 's', 'g')}/ack/${id}" rel="ack" />`);
  t.match(xml, `rel="ackAll" />`);
  t.match(xml, '<content type="application/xml">');
  const other = await adminFetch(`${groupUrl(node.url, 's', 'g')}/1`, { headers: { accept: 'application/vnd.svc.atom+json' } });
  t.equal(other.status, 406, 'only the two competing types are served');
});

t.test('bad counts, ids and actions are coded 400s and change nothing', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 's', 'g');
  await appendEvents(node.url, 's', 2);
  for (const count of ['0', '101', 'x', '-1', '1.5']) {
    const response = await takeResponse(node.url, 's', 'g', count as unknown as number);
    t.equal(response.status, 400, `count ${count}`);
    const body = await response.json() as { code: string; message: string };
    t.equal(body.code, 'SVCDB_ERR_SUBSCRIPTION_PARAMETER_INVALID');
    t.match(body.message, `Message count must be an integer between 1 and 100 'count' ='${count}'`);
  }
  const taken = await take(node.url, 's', 'g', 100);
  t.same(taken.numbers, [0, 1], 'the refused requests took nothing; 100 is allowed');
  const base = groupUrl(node.url, 's', 'g');
  for (const path of ['/ack/not-a-guid', `/ack?ids=${taken.ids[0]},nope`, '/nack/1234', `/nack?ids=zz&action=Park`]) {
    const response = await post(`${base}${path}`);
    t.equal(response.status, 400, path);
    const body = await response.json() as { code: string; message: string };
    t.equal(body.code, 'SVCDB_ERR_SUBSCRIPTION_MESSAGE_ID_INVALID', path);
    t.match(body.message, 'messageid should be a properly formed guid');
  }
  for (const path of [`/nack/${taken.ids[0]}?action=Park!`, `/nack/${taken.ids[0]}?action=Park&action=Skip`]) {
    const response = await post(`${base}${path}`);
    t.equal(response.status, 400, path);
    t.equal((await response.json() as { code: string }).code, 'SVCDB_ERR_SUBSCRIPTION_PARAMETER_INVALID', path);
  }
  t.match((await (await adminFetch(`${base}/info`)).json()), { totalInFlightMessages: 2, totalItemsProcessed: 0 }, 'nothing was acknowledged');
  t.equal((await post(`${base}/ack/${taken.ids[0]}`)).status, 202);
  t.equal((await post(`${base}/ack/00000000-0000-4000-8000-000000000000`)).status, 202, 'an id not checked out is ignored');
  t.equal((await post(`${base}/ack`)).status, 202, 'no ids: nothing to do');
});

// Regression: a JSON or XML body that did not parse was refused with the settings error and a
// hint to send settings, which these endpoints do not take.
t.test('acks, nacks and replays take no body: whatever is sent with them is not read', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 'orders', 'g');
  await appendEvents(node.url, 'orders', 3);
  const taken = await take(node.url, 'orders', 'g', 3);
  const base = groupUrl(node.url, 'orders', 'g');
  const bodies: Array<[string, string]> = [['application/json', 'not json'], ['text/xml', '<a>'], ['text/plain', 'anything']];
  const requests: Array<[string, number]> = [
    [`/ack/${taken.ids[0]}`, 202], [`/nack/${taken.ids[1]}?action=park`, 202], [`/ack?ids=${taken.ids[2]}`, 202], ['/replayParked', 200],
  ];
  for (const [index, [path, status]] of requests.entries()) {
    const [contentType, body] = bodies[index % bodies.length];
    const response = await adminFetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });
    t.equal(response.status, status, `${path} with ${contentType}`);
  }
  const info = await (await adminFetch(`${base}/info`)).json() as { totalItemsProcessed: number; totalInFlightMessages: number };
  t.match(info, { totalItemsProcessed: 2, totalInFlightMessages: 0 }, 'the acks and the nack were done');
});

t.test('consuming and acknowledging need the read right on the stream', async (t) => {
  const node = await startNode(t);
  await adminFetch(`${node.url}/streams/secret/metadata`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'svc-eventid': '11111111-1111-4111-8111-111111111111' },
    body: JSON.stringify({ $acl: { $r: 'reader' } }),
  });
  await mustCreateGroup(node.url, 'secret', 'g');
  await appendEvents(node.url, 'secret', 2);
  const reader = await createUser(node.url, { loginName: 'reader', password: 'pw' });
  const other = await createUser(node.url, { loginName: 'other', password: 'pw' });
  const refused = await takeResponse(node.url, 'secret', 'g', 1, { auth: other });
  t.equal(refused.status, 401);
  t.equal((await refused.json() as { code: string }).code, 'SVCDB_ERR_ACCESS_DENIED');
  const anonymous = await fetch(`${groupUrl(node.url, 'secret', 'g')}/1`, { headers: { accept: COMPETING_JSON } });
  t.equal(anonymous.status, 401);
  const taken = await take(node.url, 'secret', 'g', 2, { auth: reader });
  t.same(taken.numbers, [0, 1]);
  const ackRefused = await adminFetch(`${groupUrl(node.url, 'secret', 'g')}/ack?ids=${taken.ids.join(',')}`, { method: 'POST', headers: { authorization: other } });
  t.equal(ackRefused.status, 401);
  const info = await (await adminFetch(`${groupUrl(node.url, 'secret', 'g')}/info`)).json() as { totalItemsProcessed: number; connections: Array<{ username: string }> };
  t.equal(info.totalItemsProcessed, 0, 'the refused ack acknowledged nothing');
  t.same(info.connections.map((connection) => connection.username), ['reader']);
  const acked = await adminFetch(`${groupUrl(node.url, 'secret', 'g')}/ack?ids=${taken.ids.join(',')}`, { method: 'POST', headers: { authorization: reader } });
  t.equal(acked.status, 202);
});

t.test('links are resolved when the group or Svc-ResolveLinkTos asks; the message id is the link\'s', async (t) => {
  const node = await startNode(t);
  const [targetId] = await appendEvents(node.url, 'account-1', 1);
  const linkIds = await appendEvents(node.url, '$ce-account', 1, () => ({ eventType: '$>', data: '0@account-1' }));
  await mustCreateGroup(node.url, '$ce-account', 'resolved', { resolveLinktos: true });
  await mustCreateGroup(node.url, '$ce-account', 'plain');
  const resolved = await take(node.url, '$ce-account', 'resolved', 1, { embed: 'rich' });
  t.match(resolved.entries[0], { title: '0@account-1', streamId: 'account-1', eventId: targetId, positionStreamId: '$ce-account' });
  t.equal(resolved.ids[0], linkIds[0], 'acknowledged by the link\'s id');
  const plain = await take(node.url, '$ce-account', 'plain', 1, { embed: 'rich' });
  t.match(plain.entries[0], { title: '0@$ce-account', eventType: '$>' });
  await mustCreateGroup(node.url, '$ce-account', 'by-header');
  const byHeader = await take(node.url, '$ce-account', 'by-header', 1, { headers: { 'svc-resolvelinktos': 'true' } });
  t.equal(byHeader.entries[0].title, '0@account-1');
  const bad = await takeResponse(node.url, '$ce-account', 'plain', 1, { headers: { 'svc-resolvelinktos': 'maybe' } });
  t.equal(bad.status, 400);
});

t.test('Svc-LongPoll holds an empty take until a message arrives', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 's', 'g');
  const waiting = takeResponse(node.url, 's', 'g', 5, { headers: { 'svc-longpoll': '30' } });
  // The take is waiting once the consumer has joined the group.
  await withDeadline((async () => {
    while (node.subscriptions.get('s', 'g').consumers.size === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  })(), 'the long poll to start waiting');
  await appendEvents(node.url, 's', 2);
  const response = await withDeadline(waiting, 'the long poll to answer');
  t.equal(response.status, 200);
  const feed = await response.json() as CompetingFeed;
  t.same(feed.entries.map((entry) => entry.title), ['1@s', '0@s'], 'newest first');
  const bad = await takeResponse(node.url, 's', 'g', 1, { headers: { 'svc-longpoll': 'soon' } });
  t.equal(bad.status, 400);
});

t.test('a group created before its stream starts when the stream does', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 'later', 'g');
  t.same((await take(node.url, 'later', 'g', 5)).numbers, []);
  await appendEvents(node.url, 'later', 3);
  t.same((await take(node.url, 'later', 'g', 5)).numbers, [0, 1, 2]);
  await mustCreateGroup(node.url, 'later-end', 'g', { startFrom: -1 });
  await appendEvents(node.url, 'later-end', 2);
  t.same((await take(node.url, 'later-end', 'g', 5)).numbers, [0, 1], 'from the end of a stream that did not exist: from its start');
});

t.test('startFrom -1 starts after the last event, 0 at the first, N at event N', async (t) => {
  const node = await startNode(t);
  await appendEvents(node.url, 's', 5);
  await mustCreateGroup(node.url, 's', 'end', { startFrom: -1 });
  await mustCreateGroup(node.url, 's', 'start', { startFrom: 0 });
  await mustCreateGroup(node.url, 's', 'three', { startFrom: 3 });
  await mustCreateGroup(node.url, 's', 'position', { startPosition: '4' });
  await appendEvents(node.url, 's', 1);
  t.same((await take(node.url, 's', 'end', 10)).numbers, [5]);
  t.same((await take(node.url, 's', 'start', 10)).numbers, [0, 1, 2, 3, 4, 5]);
  t.same((await take(node.url, 's', 'three', 10)).numbers, [3, 4, 5]);
  t.same((await take(node.url, 's', 'position', 10)).numbers, [4, 5]);
});

t.test('deleted and truncated events are skipped', async (t) => {
  const node = await startNode(t);
  await appendEvents(node.url, 's', 5);
  await adminFetch(`${node.url}/streams/s/metadata`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'svc-eventid': '22222222-2222-4222-8222-222222222222' },
    body: JSON.stringify({ $tb: 3 }),
  });
  await mustCreateGroup(node.url, 's', 'g');
  const taken = await take(node.url, 's', 'g', 10);
  t.same(taken.numbers, [3, 4]);
  await ack(node.url, 's', 'g', taken.ids);
});

// Regression: events already read ahead into the group's buffer were still delivered after
// their stream was deleted or truncated, and a hard delete's tombstone number became the
// group's lastKnownEventNumber.
t.test('events read ahead and then deleted or truncated are not delivered', async (t) => {
  const node = await startNode(t);
  const metadata = (stream: string, body: Record<string, unknown>) => adminFetch(`${node.url}/streams/${stream}/metadata`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'svc-eventid': crypto.randomUUID() }, body: JSON.stringify(body),
  });
  for (const stream of ['soft', 'truncated', 'hard']) {
    await appendEvents(node.url, stream, 10);
    await mustCreateGroup(node.url, stream, 'g');
    const first = await take(node.url, stream, 'g', 1);
    t.same(first.numbers, [0], `${stream}: the take read the stream ahead`);
    t.equal((await ack(node.url, stream, 'g', first.ids)).status, 202);
  }
  t.equal((await adminFetch(`${node.url}/streams/soft`, { method: 'DELETE' })).status, 204);
  t.equal((await metadata('truncated', { $tb: 8 })).status, 201);
  t.equal((await adminFetch(`${node.url}/streams/hard`, { method: 'DELETE', headers: { 'svc-harddelete': 'true' } })).status, 204);
  t.same((await take(node.url, 'soft', 'g', 20)).numbers, [], 'a deleted stream delivers nothing');
  t.same((await take(node.url, 'truncated', 'g', 20)).numbers, [8, 9], 'only the events after $tb');
  t.same((await take(node.url, 'hard', 'g', 20)).numbers, [], 'a hard-deleted stream delivers nothing');
  const hard = await info(node.url, 'hard', 'g');
  t.match(hard, { lastKnownEventNumber: 9, status: 'Live' }, 'the tombstone is not an event of the stream');
  t.equal(node.subscriptions.stats()['hard::g'].lag, 0, 'the lag in /stats: nothing is left to deliver');
});

// Regression: these answered 404 "create it with PUT", and a PUT on $all is refused.
t.test('every group route on $all says that $all is not served over HTTP', async (t) => {
  const node = await startNode(t);
  const base = groupUrl(node.url, '$all', 'g');
  const requests: Array<[string, string]> = [
    ['GET', base], ['GET', `${base}/info`], ['POST', base], ['DELETE', base], ['POST', `${base}/ack?ids=`], ['POST', `${base}/replayParked`],
  ];
  for (const [method, url] of requests) {
    const response = await adminFetch(url, { method, headers: { accept: method === 'GET' && url === base ? COMPETING_JSON : 'application/json' } });
    t.equal(response.status, 400, `${method} ${url}`);
    const error = await response.json() as { code: string; message: string };
    t.equal(error.code, 'SVCDB_ERR_SUBSCRIPTION_PARAMETER_INVALID', `${method} ${url}`);
    t.match(error.message, 'not served over HTTP');
  }
});
