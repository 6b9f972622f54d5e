// Subscription groups over HTTP: create (201 with Location, 409 twice, 401 for non-operators),
// every SubscriptionItem field with its default, camelCase and PascalCase, the reference's
// validation messages as coded 400s, update, delete, and definitions that survive a restart.
import t from 'tap';
import { adminFetch, createUser, OPS_AUTH } from '../helpers/auth.js';
import { requestBody, startNode } from '../helpers/node.js';
import { ack, appendEvents, createGroup, groupUrl, info, mustCreateGroup, restartedService, take, takeResponse } from '../helpers/subscriptions.js';

const DEFAULTS = {
  resolveLinktos: false, startFrom: 0, messageTimeoutMilliseconds: 10000, extraStatistics: false, maxRetryCount: 10,
  liveBufferSize: 500, bufferSize: 500, readBatchSize: 20, preferRoundRobin: true, checkPointAfterMilliseconds: 1000,
  minCheckPointCount: 10, maxCheckPointCount: 500, maxSubscriberCount: 10, namedConsumerStrategy: 'RoundRobin',
};

t.test('create answers 201 with Location, then 409 for the same group', async (t) => {
  const node = await startNode(t);
  const created = await createGroup(node.url, 'orders', 'g1');
  t.equal(created.status, 201);
  t.equal(created.headers.get('location'), groupUrl(node.url, 'orders', 'g1'));
  t.match(await created.json(), { result: 'Success' });
  const again = await createGroup(node.url, 'orders', 'g1');
  t.equal(again.status, 409);
  t.equal((await again.json() as { code: string }).code, 'SVCDB_ERR_SUBSCRIPTION_EXISTS');
  t.equal((await createGroup(node.url, 'orders', 'g2')).status, 201, 'another group of the same stream');
  t.equal((await createGroup(node.url, 'other', 'g1')).status, 201, 'the same group name on another stream');
});

t.test('only admins and ops manage groups; other users get 401 and nothing changes', async (t) => {
  const node = await startNode(t);
  const user = await createUser(node.url, { loginName: 'reader', password: 'pw' });
  const refused = await createGroup(node.url, 'orders', 'g1', {}, user);
  t.equal(refused.status, 401);
  t.equal((await refused.json() as { code: string }).code, 'SVCDB_ERR_ACCESS_DENIED');
  const anonymous = await fetch(groupUrl(node.url, 'orders', 'g1'), { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
  t.equal(anonymous.status, 401);
  t.equal((await adminFetch(`${node.url}/subscriptions`)).status, 200);
  t.same(await (await adminFetch(`${node.url}/subscriptions`)).json(), [], 'no group was created');
  t.equal((await createGroup(node.url, 'orders', 'g1', {}, OPS_AUTH)).status, 201, 'ops may create');
  const update = await adminFetch(groupUrl(node.url, 'orders', 'g1'), { method: 'POST', headers: { authorization: user, 'content-type': 'application/json' }, body: '{}' });
  t.equal(update.status, 401);
  const remove = await adminFetch(groupUrl(node.url, 'orders', 'g1'), { method: 'DELETE', headers: { authorization: user } });
  t.equal(remove.status, 401);
  const replay = await adminFetch(`${groupUrl(node.url, 'orders', 'g1')}/replayParked`, { method: 'POST', headers: { authorization: user } });
  t.equal(replay.status, 401);
});

t.test('every field has the wire note\'s default, and PascalCase or camelCase both set it', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 's', 'defaults');
  t.match((await info(node.url, 's', 'defaults')).config, DEFAULTS);
  const pascal = {
    ResolveLinkTos: true, StartFrom: 5, MessageTimeoutMilliseconds: 2000, ExtraStatistics: true, MaxRetryCount: 3,
    LiveBufferSize: 50, BufferSize: 60, ReadBatchSize: 10, CheckPointAfterMilliseconds: 300, MinCheckPointCount: 2,
    MaxCheckPointCount: 7, MaxSubscriberCount: 4, NamedConsumerStrategy: 'Pinned',
  };
  await mustCreateGroup(node.url, 's', 'pascal', pascal);
  t.match((await info(node.url, 's', 'pascal')).config, {
    resolveLinktos: true, startFrom: 5, messageTimeoutMilliseconds: 2000, extraStatistics: true, maxRetryCount: 3,
    liveBufferSize: 50, bufferSize: 60, readBatchSize: 10, checkPointAfterMilliseconds: 300, minCheckPointCount: 2,
    maxCheckPointCount: 7, maxSubscriberCount: 4, namedConsumerStrategy: 'Pinned',
  });
  await mustCreateGroup(node.url, 's', 'camel', { resolveLinkTos: true, namedConsumerStrategy: 'PinnedByCorrelation', startPosition: '-1' });
  t.match((await info(node.url, 's', 'camel')).config, { resolveLinktos: true, namedConsumerStrategy: 'PinnedByCorrelation', startFrom: -1 });
  await mustCreateGroup(node.url, 's', 'empty-strategy', { namedConsumerStrategy: '', preferRoundRobin: false });
  t.match((await info(node.url, 's', 'empty-strategy')).config, { namedConsumerStrategy: 'DispatchToSingle' });
});

t.test('invalid settings are coded 400s with the reference\'s messages, and create nothing', async (t) => {
  const node = await startNode(t);
  const cases: Array<[Record<string, unknown> | string, string]> = [
    [{ bufferSize: 0 }, 'Buffer Size (0) must be positive'],
    [{ liveBufferSize: -1 }, 'Live Buffer Size (-1) must be positive'],
    [{ readBatchSize: 0 }, 'Read Batch Size (0) must be positive'],
    [{ bufferSize: 20, readBatchSize: 20 }, 'BufferSize (20) must be larger than ReadBatchSize (20)'],
    [{ namedConsumerStrategy: 'Fastest' }, "namedConsumerStrategy 'Fastest' is not one of RoundRobin, DispatchToSingle, Pinned, PinnedByCorrelation"],
    [{ maxRetryCount: 'many' }, 'maxRetryCount must be an integer'],
    [{ resolveLinktos: 'yes' }, 'resolveLinktos must be true or false'],
    [{ startFrom: -2 }, 'startFrom (-2) must be -1'],
    [{ minCheckPointCount: 20, maxCheckPointCount: 10 }, 'minCheckPointCount (20) must not be larger than maxCheckPointCount (10)'],
    [{ messageTimeoutMilliseconds: -5 }, 'messageTimeoutMilliseconds (-5) must not be negative'],
    ['[1,2]', 'the body must be a JSON object'],
    ['{not json', 'the body is not valid JSON'],
  ];
  for (const [body, message] of cases) {
    const response = await adminFetch(groupUrl(node.url, 's', 'g'), {
      method: 'PUT', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    t.equal(response.status, 400, JSON.stringify(body));
    const error = await response.json() as { code: string; message: string };
    t.equal(error.code, 'SVCDB_ERR_SUBSCRIPTION_SETTINGS_INVALID', JSON.stringify(body));
    t.match(error.message, message);
  }
  t.same(await (await adminFetch(`${node.url}/subscriptions`)).json(), [], 'no group was created');
  const all = await createGroup(node.url, '$all', 'g');
  t.equal(all.status, 400);
  t.equal((await all.json() as { code: string }).code, 'SVCDB_ERR_SUBSCRIPTION_PARAMETER_INVALID');
});

// Regression: `"namedConsumerStrategy": null` reached the strategy lookup and answered a 500.
t.test('null is refused for every field but startPosition, on create and on update', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 's', 'existing');
  for (const field of Object.keys(DEFAULTS)) {
    for (const method of ['PUT', 'POST']) {
      const group = method === 'PUT' ? 'new' : 'existing';
      const response = await adminFetch(groupUrl(node.url, 's', group), {
        method, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ [field]: null }),
      });
      t.equal(response.status, 400, `${method} ${field}`);
      const error = await response.json() as { code: string; message: string };
      t.equal(error.code, 'SVCDB_ERR_SUBSCRIPTION_SETTINGS_INVALID', `${method} ${field}`);
      t.equal(error.message, `${field} must not be null; leave it out for the default`);
    }
  }
  t.same((await (await adminFetch(`${node.url}/subscriptions`)).json() as unknown[]).length, 1, 'nothing was created');
  t.match((await info(node.url, 's', 'existing')).config, DEFAULTS, 'nothing was changed');
  t.equal((await createGroup(node.url, 's', 'null-start', { startPosition: null, startFrom: 3 })).status, 201, 'startPosition null: startFrom decides');
  t.match((await info(node.url, 's', 'null-start')).config, { startFrom: 3 });
});

// Regression: a settings body of any other type was dropped, and the group created or
// "updated" with the defaults, answered as Success.
t.test('settings in a body that is neither JSON nor XML are a 415, and change nothing', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 's', 'existing', { maxRetryCount: 2 });
  const body = '{"maxRetryCount":0,"bufferSize":0}';
  const cases: Array<[string, Record<string, string>, string | Uint8Array<ArrayBuffer>]> = [
    ['a form', { 'content-type': 'application/x-www-form-urlencoded' }, body],
    ['text', { 'content-type': 'text/plain' }, body],
    ['no Content-Type', {}, requestBody(Buffer.from(body))],
  ];
  for (const [what, headers, sent] of cases) {
    for (const [method, group] of [['PUT', 'new'], ['POST', 'existing']]) {
      const response = await adminFetch(groupUrl(node.url, 's', group), { method, headers, body: sent });
      t.equal(response.status, 415, `${method} with ${what}`);
      t.equal((await response.json() as { code: string }).code, 'SVCDB_ERR_HTTP_MEDIA_TYPE', `${method} with ${what}`);
    }
  }
  t.equal((await adminFetch(`${groupUrl(node.url, 's', 'new')}/info`)).status, 404, 'nothing was created');
  t.match((await info(node.url, 's', 'existing')).config, { maxRetryCount: 2, bufferSize: 500 }, 'nothing was changed');
  const empty = await adminFetch(groupUrl(node.url, 's', 'no-body'), { method: 'PUT' });
  t.equal(empty.status, 201, 'no body at all: the defaults');
  t.match((await info(node.url, 's', 'no-body')).config, DEFAULTS);
  const charset = await adminFetch(groupUrl(node.url, 's', 'charset'), { method: 'PUT', headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"maxRetryCount":3}' });
  t.equal(charset.status, 201);
  t.match((await info(node.url, 's', 'charset')).config, { maxRetryCount: 3 });
});

t.test('an XML body sets the fields too', async (t) => {
  const node = await startNode(t);
  const response = await adminFetch(groupUrl(node.url, 's', 'x'), {
    method: 'PUT', headers: { 'content-type': 'text/xml' },
    body: '<SubscriptionItem><BufferSize>40</BufferSize><ReadBatchSize>5</ReadBatchSize><ResolveLinkTos>true</ResolveLinkTos></SubscriptionItem>',
  });
  t.equal(response.status, 201);
  t.match((await info(node.url, 's', 'x')).config, { bufferSize: 40, readBatchSize: 5, resolveLinktos: true });
});

t.test('update changes the settings; update and delete of a missing group are 404', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 's', 'g', { maxRetryCount: 2 });
  const update = await adminFetch(groupUrl(node.url, 's', 'g'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"messageTimeoutMilliseconds":1234}' });
  t.equal(update.status, 200);
  t.equal(update.headers.get('location'), groupUrl(node.url, 's', 'g'), 'Location, as a create answers');
  t.match(await update.json(), { correlationId: String, reason: '', result: 'Success' });
  t.match((await info(node.url, 's', 'g')).config, { maxRetryCount: 2, messageTimeoutMilliseconds: 1234 }, 'fields not sent keep their values');
  const badUpdate = await adminFetch(groupUrl(node.url, 's', 'g'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"bufferSize":-1}' });
  t.equal(badUpdate.status, 400);
  t.match((await info(node.url, 's', 'g')).config, { bufferSize: 500 }, 'a refused update changes nothing');
  const missing = await adminFetch(groupUrl(node.url, 's', 'nope'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  t.equal(missing.status, 404);
  t.equal((await missing.json() as { code: string }).code, 'SVCDB_ERR_SUBSCRIPTION_NOT_FOUND');
  t.equal((await adminFetch(groupUrl(node.url, 's', 'g'), { method: 'DELETE' })).status, 200);
  t.equal((await adminFetch(groupUrl(node.url, 's', 'g'), { method: 'DELETE' })).status, 404);
  t.equal((await adminFetch(`${groupUrl(node.url, 's', 'g')}/info`)).status, 404);
  t.equal((await createGroup(node.url, 's', 'g')).status, 201, 'a deleted group can be created again');
});


// Regression: an update stops the group and writes its checkpoint before replacing it; a second
// update or a delete arriving meanwhile worked on the old group, so one update's fields were lost,
// the list held ghost copies of the group, and a delete could be undone.
t.test('updates and deletes of one group sent together end as if sent one after the other', async (t) => {
  const node = await startNode(t);
  const admin = { name: 'admin', groups: ['$admins'] };
  await appendEvents(node.url, 's', 20);
  for (const group of ['updated', 'deleted']) {
    await mustCreateGroup(node.url, 's', group);
    // Handled, and not yet checkpointed: the update's stop has a checkpoint to write.
    const taken = await take(node.url, 's', group, 5);
    t.equal((await ack(node.url, 's', group, taken.ids)).status, 202);
  }
  // Called in one turn of the event loop, so they are started in this order.
  await Promise.all([
    node.subscriptions.update(admin, 's', 'updated', { maxRetryCount: 1 }),
    node.subscriptions.update(admin, 's', 'updated', { bufferSize: 50 }),
    node.subscriptions.update(admin, 's', 'updated', { maxRetryCount: 3 }),
  ]);
  const raced = await Promise.allSettled([
    node.subscriptions.update(admin, 's', 'deleted', { maxRetryCount: 1 }),
    node.subscriptions.delete(admin, 's', 'deleted'),
  ]);
  t.same(raced.map((outcome) => outcome.status), ['fulfilled', 'fulfilled']);
  const listed = await (await adminFetch(`${node.url}/subscriptions/s`)).json() as Array<{ groupName: string }>;
  t.same(listed.map((entry) => entry.groupName), ['updated'], 'one group, and the deleted one is gone');
  t.match((await info(node.url, 's', 'updated')).config, { maxRetryCount: 3, bufferSize: 50 }, 'every update applied, the last one last');
  t.equal((await adminFetch(`${groupUrl(node.url, 's', 'deleted')}/info`)).status, 404);
  t.same(restartedService(t, node).list().map((group) => group.definition.group), ['updated'], 'the config says the same');
});

t.test('definitions are kept in $persistentSubscriptionConfig and come back after a restart', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 's', 'kept', { maxRetryCount: 4, namedConsumerStrategy: 'Pinned' });
  await mustCreateGroup(node.url, 's', 'gone');
  t.equal((await adminFetch(groupUrl(node.url, 's', 'gone'), { method: 'DELETE' })).status, 200);
  const config = await adminFetch(`${node.url}/streams/%24persistentSubscriptionConfig/0/forward/20?embed=body`, { headers: { accept: 'application/vnd.svc.atom+json' } });
  t.equal(config.status, 200);
  const feed = await config.json() as { entries: Array<{ eventType: string; data: string }> };
  const events = feed.entries.reverse().map((entry) => ({ eventType: entry.eventType, data: JSON.parse(entry.data) as Record<string, unknown> }));
  t.same(events.map((event) => event.eventType), ['$PersistentConfig', '$PersistentConfig', '$PersistentConfig']);
  t.match(events[0].data, { version: String, updatedBy: 'admin', entries: [{ stream: 's', group: 'kept', maxRetryCount: 4 }] }, 'the first change of a start writes the whole set');
  t.equal((events[0].data.entries as unknown[]).length, 1);
  t.match(events[1].data, { updatedBy: 'admin', change: 'put', entry: { stream: 's', group: 'gone', maxRetryCount: 10 } }, 'then each change alone');
  t.same(events[2].data.entry, { stream: 's', group: 'gone' });
  t.equal(events[2].data.change, 'delete');
  const restarted = restartedService(t, node);
  t.same(restarted.list().map((group) => [group.definition.group, group.settings.maxRetryCount, group.settings.namedConsumerStrategy]), [['kept', 4, 'Pinned']]);
});

// Regression: groups were kept under `{stream}::{group}`, so `sec/ret::g` found the group of
// stream `sec::ret`, and its messages were served after a read check on stream `sec`.
t.test('a group is its (stream, group) pair: names with :: never reach the group of another stream', async (t) => {
  const node = await startNode(t);
  await adminFetch(`${node.url}/streams/${encodeURIComponent('sec::ret')}/metadata`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'svc-eventid': '11111111-1111-4111-8111-111111111111' },
    body: JSON.stringify({ $acl: { $r: '$admins' } }),
  });
  await appendEvents(node.url, 'sec::ret', 2);
  await mustCreateGroup(node.url, 'sec::ret', 'g');
  const user = await createUser(node.url, { loginName: 'u1', password: 'pw1' });
  const other = await takeResponse(node.url, 'sec', 'ret::g', 10, { auth: user });
  t.equal(other.status, 404, 'group ret::g on stream sec does not exist');
  t.equal((await other.json() as { code: string }).code, 'SVCDB_ERR_SUBSCRIPTION_NOT_FOUND');
  t.equal((await takeResponse(node.url, 'sec', 'ret::g', 10)).status, 404, 'not for an admin either');
  t.equal((await adminFetch(`${groupUrl(node.url, 'sec', 'ret::g')}/info`)).status, 404);
  t.equal((await adminFetch(groupUrl(node.url, 'sec', 'ret::g'), { method: 'DELETE' })).status, 404);
  t.equal((await adminFetch(groupUrl(node.url, 'sec', 'ret::g'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 404);
  // Both would be named `sec::ret::g` in their checkpoint and parked streams: the second is refused.
  const clash = await createGroup(node.url, 'sec', 'ret::g');
  t.equal(clash.status, 400);
  const error = await clash.json() as { code: string; message: string };
  t.equal(error.code, 'SVCDB_ERR_SUBSCRIPTION_PARAMETER_INVALID');
  t.match(error.message, 'would share its checkpoint and parked streams');
  t.same((await info(node.url, 'sec::ret', 'g')).eventStreamId, 'sec::ret', 'the group of sec::ret is still there');
  t.same((await take(node.url, 'sec::ret', 'g', 10)).numbers, [0, 1]);
  t.equal((await createGroup(node.url, 'sec', 'ret::h')).status, 201, 'other names with :: are fine');
  t.same((await take(node.url, 'sec', 'ret::h', 10)).numbers, [], 'stream sec has no events');
});

t.test('a stream and group whose checkpoint stream name would be too long are refused', async (t) => {
  const node = await startNode(t);
  const response = await createGroup(node.url, 's'.repeat(900), 'g'.repeat(90));
  t.equal(response.status, 400);
  t.equal((await response.json() as { code: string }).code, 'SVCDB_ERR_SUBSCRIPTION_PARAMETER_INVALID');
  t.same(await (await adminFetch(`${node.url}/subscriptions`)).json(), []);
});

t.test('a config event that does not read, or a bad checkpoint, does not stop the groups that do', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 's', 'good');
  const config = await (await adminFetch(`${node.url}/streams/%24persistentSubscriptionConfig/head`, { headers: { accept: 'application/vnd.svc.event+json' } })).json() as { data: { entries: unknown[] } };
  const entries = [...config.data.entries, { stream: 's', group: 'bad', bufferSize: -4 }, { nonsense: true }];
  const write = async (stream: string, eventType: string, data: unknown) => {
    const response = await adminFetch(`${node.url}/streams/${encodeURIComponent(stream)}`, {
      method: 'POST', headers: { 'content-type': 'application/vnd.svc.events+json' },
      body: JSON.stringify([{ eventId: crypto.randomUUID(), eventType, data }]),
    });
    t.equal(response.status, 201);
  };
  await write('$persistentSubscriptionConfig', '$PersistentConfig', { ...config.data, entries });
  await write('$persistentsubscription-s::good-checkpoint', 'SubscriptionCheckpoint', 'not a number');
  const restarted = restartedService(t, node);
  t.same(restarted.list().map((group) => group.definition.group), ['good'], 'the readable group starts');
  t.equal(restarted.get('s', 'good').lastCheckpoint, -1, 'from its startFrom');
  await write('$persistentSubscriptionConfig', '$PersistentConfig', 'garbage');
  const again = restartedService(t, node);
  t.same(again.list().map((group) => group.definition.group), ['good'], 'a config event that is not JSON is passed over: the set before it holds');
});

t.test('a group from the end of a stream that does not exist yet keeps its start over a restart', async (t) => {
  const node = await startNode(t);
  await mustCreateGroup(node.url, 'not-yet', 'g', { startFrom: -1 });
  const response = await adminFetch(`${node.url}/streams/not-yet`, {
    method: 'POST', headers: { 'content-type': 'application/vnd.svc.events+json' },
    body: JSON.stringify([{ eventId: crypto.randomUUID(), eventType: 'T', data: {} }, { eventId: crypto.randomUUID(), eventType: 'T', data: {} }]),
  });
  t.equal(response.status, 201);
  const restarted = restartedService(t, node);
  const admin = { name: 'admin', groups: ['$admins'] };
  const { messages } = restarted.consume(admin, 'not-yet', 'g', { key: 'c', from: 'test', username: 'admin', connectionName: 'c' }, 10);
  t.same(messages.map((message) => message.eventNumber), [0, 1], 'the events written before the restart are delivered');
});
