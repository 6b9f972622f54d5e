/**
 * The system projections on a known log: the streams they write, read back with and without
 * link resolution; their configurable sources; Stopped until enabled or started with
 * --start-standard-projections; never deletable.
 */
import t from 'tap';
import { ADMIN_AUTH, adminFetch } from '../helpers/auth.js';
import { newEvent } from '../helpers/engine.js';
import { projectionInfo, readStream, startProjectionsNode, waitCaughtUp, type ProjectionsNode } from '../helpers/projections.js';

const SYSTEM = ['$by_category', '$by_event_type', '$stream_by_category', '$streams', '$by_correlation_id'];

/** order-1: Created, Paid; order-2: Created; user-1: Registered (correlated); $internal: ignored. */
async function knownLog(node: ProjectionsNode): Promise<void> {
  await node.engine.append('order-1', -2, [newEvent('Created', { n: 1 }), newEvent('Paid', { n: 2 })]);
  await node.engine.append('order-2', -2, [newEvent('Created', { n: 3 })]);
  await node.engine.append('user-1', -2, [{
    eventId: crypto.randomUUID(), eventType: 'Registered', data: Buffer.from('{"n":4}'), metadata: Buffer.from('{"$correlationId":"abc","other":"x"}'), isJson: true,
  }]);
  await node.engine.append('$internal', -2, [newEvent('Created', { n: 5 })]);
}

async function enable(node: ProjectionsNode, name: string): Promise<void> {
  const response = await adminFetch(`${node.url}/projection/${encodeURIComponent(name)}/command/enable`, { method: 'POST' });
  if (response.status !== 200) throw new Error(`enabling ${name}: ${response.status} ${await response.text()}`);
}

const links = (entries: Array<Record<string, unknown>>) => entries.map((entry) => [entry.eventType, entry.data]);
const bodies = (entries: Array<Record<string, unknown>>) => entries.map((entry) => entry.data);

t.test('system projections exist, start Stopped, and write nothing until enabled', async (t) => {
  const node = await startProjectionsNode(t);
  await knownLog(node);
  for (const name of SYSTEM) {
    const info = await projectionInfo(node.url, name);
    t.equal(info.status, 'Stopped', `${name} is Stopped`);
    t.equal(info.mode, 'Continuous');
  }
  t.same(await readStream(node.url, '$ce-order'), []);
});

t.test('each system projection writes its streams; links resolve to the events', async (t) => {
  const node = await startProjectionsNode(t);
  await knownLog(node);
  for (const name of SYSTEM) await enable(node, name);
  for (const name of SYSTEM) await waitCaughtUp(node, name);

  t.same(links(await readStream(node.url, '$ce-order')), [['$>', '0@order-1'], ['$>', '1@order-1'], ['$>', '0@order-2']], '$by_category');
  t.same(bodies(await readStream(node.url, '$ce-order', true)), [{ n: 1 }, { n: 2 }, { n: 3 }], '$ce-order resolved');
  t.same(links(await readStream(node.url, '$ce-user')), [['$>', '0@user-1']]);
  t.same(links(await readStream(node.url, '$et-Created')), [['$>', '0@order-1'], ['$>', '0@order-2']], '$by_event_type');
  t.same(bodies(await readStream(node.url, '$et-Paid', true)), [{ n: 2 }]);
  t.same(links(await readStream(node.url, '$category-order')), [['$@', 'order-1'], ['$@', 'order-2']], '$stream_by_category');
  t.same(links(await readStream(node.url, '$streams')), [['$>', '0@order-1'], ['$>', '0@order-2'], ['$>', '0@user-1']], '$streams');
  t.same(links(await readStream(node.url, '$bc-abc')), [['$>', '0@user-1']], '$by_correlation_id');
  t.same(bodies(await readStream(node.url, '$bc-abc', true)), [{ n: 4 }]);

  // Events appended while they run are indexed too.
  await node.engine.append('order-3', -2, [newEvent('Created', { n: 6 })]);
  for (const name of SYSTEM) await waitCaughtUp(node, name);
  t.same(links(await readStream(node.url, '$ce-order')).at(-1), ['$>', '0@order-3']);
  t.same(links(await readStream(node.url, '$streams')).at(-1), ['$>', '0@order-3']);
});

t.test('sources are configurable while stopped: last separator, another correlation property', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('shop-eu-1', -2, [newEvent('Created', {})]);
  await node.engine.append('x-1', -2, [{ eventId: crypto.randomUUID(), eventType: 'E', data: Buffer.from('{}'), metadata: Buffer.from('{"cid":"q1"}'), isJson: true }]);
  const put = (name: string, body: string) => adminFetch(`${node.url}/projection/${encodeURIComponent(name)}/query`, { method: 'PUT', body, headers: { authorization: ADMIN_AUTH } });
  t.equal((await put('$by_category', 'last\n-')).status, 200);
  t.equal((await put('$by_correlation_id', '{"correlationIdProperty":"cid"}')).status, 200);
  const bad = await put('$by_category', 'middle\n-');
  t.equal(bad.status, 400);
  t.equal(((await bad.json()) as { code: string }).code, 'SVCDB_ERR_PROJECTION_QUERY_INVALID');
  const query = await adminFetch(`${node.url}/projection/$by_category/query`);
  t.equal(await query.text(), 'last\n-', 'the refused source changed nothing');
  await enable(node, '$by_category');
  await enable(node, '$by_correlation_id');
  await waitCaughtUp(node, '$by_category');
  await waitCaughtUp(node, '$by_correlation_id');
  t.same(links(await readStream(node.url, '$ce-shop-eu')), [['$>', '0@shop-eu-1']]);
  t.same(links(await readStream(node.url, '$bc-q1')), [['$>', '0@x-1']]);
});

t.test('--start-standard-projections runs them from the start; they cannot be deleted', async (t) => {
  const node = await startProjectionsNode(t, { startStandardProjections: true });
  await knownLog(node);
  for (const name of SYSTEM) t.equal((await projectionInfo(node.url, name)).status, 'Running', `${name} runs`);
  await waitCaughtUp(node, '$by_category');
  t.same(links(await readStream(node.url, '$ce-order')).length, 3);
  await adminFetch(`${node.url}/projection/$streams/command/disable`, { method: 'POST' });
  const response = await adminFetch(`${node.url}/projection/$streams`, { method: 'DELETE' });
  t.equal(response.status, 400);
  t.equal(((await response.json()) as { code: string }).code, 'SVCDB_ERR_PROJECTION_SYSTEM');
  t.equal((await projectionInfo(node.url, '$streams')).name, '$streams', 'it is still there');
});

t.test('--run-projections System refuses user projections and runs the system ones', async (t) => {
  const node = await startProjectionsNode(t, { runProjections: 'System', startStandardProjections: true });
  const response = await adminFetch(`${node.url}/projections/continuous?name=x&type=JS`, { method: 'POST', body: 'fromAll().when({})' });
  t.equal(response.status, 400);
  t.equal(((await response.json()) as { code: string }).code, 'SVCDB_ERR_PROJECTIONS_USER_DISABLED');
  t.equal((await projectionInfo(node.url, '$by_event_type')).status, 'Running');
});
