/**
 * Every endpoint of the projections API with its statuses and bodies: listings, one projection,
 * state and result with their position header, statistics, query, config, commands, delete,
 * read-events, and the 400/401/404/409 answers.
 */
import t from 'tap';
import { ADMIN_AUTH, adminFetch, createUser, OPS_AUTH } from '../helpers/auth.js';
import { newEvents } from '../helpers/engine.js';
import {
  createProjection, projectionInfo, projectionState, readStream, startProjectionsNode, waitCaughtUp, waitStatus,
} from '../helpers/projections.js';

const COUNTER = 'fromAll().when({$init: function(){ return {count:0}; }, $any: function(s){ s.count++; }})';

async function code(response: Response): Promise<string> {
  return ((await response.json()) as { code: string }).code;
}

t.test('creation: 201 with Location and name, whatever the Content-Type; 409 for a duplicate; 400 for bad parameters', async (t) => {
  const node = await startProjectionsNode(t);
  for (const type of ['application/json', 'application/javascript', 'text/plain', undefined]) {
    const name = `p-${type ?? 'none'}`.replace(/\//g, '_');
    const headers: Record<string, string> = type ? { 'content-type': type } : {};
    const response = await adminFetch(`${node.url}/projections/continuous?name=${name}&type=JS&enabled=no`, { method: 'POST', body: COUNTER, headers });
    t.equal(response.status, 201, `created with ${type ?? 'no content type'}`);
    t.equal(response.headers.get('location'), `${node.url}/projection/${name}`);
    t.same(await response.json(), { name });
  }
  const duplicate = await adminFetch(`${node.url}/projections/continuous?name=p-none&type=JS`, { method: 'POST', body: COUNTER });
  t.equal(duplicate.status, 409);
  t.match(await duplicate.json(), { code: 'SVCDB_ERR_PROJECTION_CONFLICT', message: /Duplicate projection names : p-none/ });
  const badFlag = await adminFetch(`${node.url}/projections/continuous?name=q&emit=maybe`, { method: 'POST', body: COUNTER });
  t.equal(badFlag.status, 400);
  t.equal(await code(badFlag), 'SVCDB_ERR_PROJECTION_REQUEST_INVALID');
  const badType = await adminFetch(`${node.url}/projections/continuous?name=q&type=native`, { method: 'POST', body: COUNTER });
  t.equal(await code(badType), 'SVCDB_ERR_PROJECTION_REQUEST_INVALID');
  const unnamed = await adminFetch(`${node.url}/projections/onetime?type=JS`, { method: 'POST', body: COUNTER });
  t.equal(unnamed.status, 201);
  t.match((await unnamed.json()) as object, { name: /^[0-9a-f-]{36}$/ }, 'an unnamed one-time projection gets a GUID name');
});

t.test('listings by mode, one projection, statistics', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('a-1', -2, newEvents(3));
  await createProjection(node.url, 'continuous', 'cont', COUNTER);
  await createProjection(node.url, 'onetime', 'once', COUNTER);
  await createProjection(node.url, 'transient', 'temp', COUNTER);
  const names = async (path: string) => {
    const response = await adminFetch(`${node.url}/projections/${path}`);
    t.equal(response.headers.get('cache-control'), 'no-cache');
    return ((await response.json()) as { projections: Array<{ name: string }> }).projections.map((item) => item.name).filter((name) => !name.startsWith('$')).sort();
  };
  t.same(await names('any'), ['cont', 'once', 'temp']);
  t.same(await names('all-non-transient'), ['cont', 'once']);
  t.same(await names('continuous'), ['cont']);
  t.same(await names('onetime'), ['once']);
  t.same(await names('transient'), ['temp']);
  await waitCaughtUp(node, 'cont');
  const item = await projectionInfo(node.url, 'cont');
  t.match(item, {
    name: 'cont', effectiveName: 'cont', mode: 'Continuous', status: 'Running', stateReason: '', epoch: 0, version: 1,
    position: /^C:\d+\/P:\d+$/, progress: Number, eventsProcessedAfterRestart: 3, partitionsCached: 1,
    statusUrl: `${node.url}/projection/cont`, stateUrl: `${node.url}/projection/cont/state`, resultUrl: `${node.url}/projection/cont/result`,
    queryUrl: `${node.url}/projection/cont/query?config=yes`, enableCommandUrl: `${node.url}/projection/cont/command/enable`,
    disableCommandUrl: `${node.url}/projection/cont/command/disable`,
  });
  t.notOk('resultStreamUrl' in item, 'no result stream without outputState');
  const statistics = await (await adminFetch(`${node.url}/projection/cont/statistics`)).json() as { projections: Array<{ name: string }> };
  t.same(statistics.projections.map((projection) => projection.name), ['cont']);
  const redirect = await adminFetch(`${node.url}/projections`, { redirect: 'manual' });
  t.equal(redirect.status, 302);
});

t.test('state and result with ?partition and the position header', async (t) => {
  const node = await startProjectionsNode(t, { startStandardProjections: true }); // categories are read through $by_category's $ce- streams
  await node.engine.append('s-1', -2, newEvents(2));
  await node.engine.append('s-2', -2, newEvents(1));
  await createProjection(node.url, 'continuous', 'per', 'fromCategory("s").foreachStream().when({$init: function(){ return {n:0}; }, $any: function(s){ s.n++; }}).outputState()');
  await waitCaughtUp(node, 'per');
  const response = await adminFetch(`${node.url}/projection/per/state?partition=s-1`);
  t.same(await response.json(), { n: 2 });
  t.same(JSON.parse(response.headers.get('svc-position') ?? 'null'), { $s: { '$ce-s': 2 } },
    'Svc-Position is the tag of the last event processed: the third link of $ce-s');
  t.same(await projectionState(node.url, 'per', 's-2', 'result'), { n: 1 });
  t.equal(await (await adminFetch(`${node.url}/projection/per/state?partition=nope`)).text(), '', 'an unknown partition is empty');
  t.match(await projectionInfo(node.url, 'per'), { resultStreamUrl: `${node.url}/streams/%24projections-per-result` });
});

t.test('query GET (source or config) and PUT', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('a-1', -2, newEvents(2));
  await createProjection(node.url, 'continuous', 'q', COUNTER, { emit: 'yes' });
  const source = await adminFetch(`${node.url}/projection/q/query`);
  t.match(source.headers.get('content-type'), /application\/javascript/);
  t.equal(await source.text(), COUNTER);
  t.match(await (await adminFetch(`${node.url}/projection/q/query?config=yes`)).json(), { name: 'q', query: COUNTER, emitEnabled: true, checkpointsEnabled: true });
  await waitCaughtUp(node, 'q');
  const next = 'fromAll().when({$init: function(){ return {count:100}; }, $any: function(s){ s.count++; }})';
  const put = await adminFetch(`${node.url}/projection/q/query?type=JS&emit=no`, { method: 'PUT', body: next, headers: { 'content-type': 'application/json' } });
  t.equal(put.status, 200);
  t.same(await put.json(), { name: 'q' });
  t.equal(await (await adminFetch(`${node.url}/projection/q/query`)).text(), next);
  t.notOk(((await (await adminFetch(`${node.url}/projection/q/query?config=yes`)).json()) as Record<string, unknown>).emitEnabled, 'emit=no is kept');
  const bad = await adminFetch(`${node.url}/projection/q/query`, { method: 'PUT', body: 'fromAll(' });
  t.equal(bad.status, 400);
  t.equal(await code(bad), 'SVCDB_ERR_PROJECTION_QUERY_INVALID');
});

t.test('config: GET, PUT refused while running, validated, applied while stopped', async (t) => {
  const node = await startProjectionsNode(t);
  await createProjection(node.url, 'continuous', 'c', COUNTER);
  const config = await (await adminFetch(`${node.url}/projection/c/config`)).json();
  t.same(config, {
    emitEnabled: false, trackEmittedStreams: false, checkpointAfterMs: 0, checkpointHandledThreshold: 4000, checkpointUnhandledBytesThreshold: 10_000_000,
    pendingEventsThreshold: 5000, maxWriteBatchLength: 500, maxAllowedWritesInFlight: 0, projectionExecutionTimeout: 250,
  });
  const running = await adminFetch(`${node.url}/projection/c/config`, { method: 'PUT', body: '{"checkpointHandledThreshold":10}' });
  t.equal(running.status, 400);
  t.equal(await code(running), 'SVCDB_ERR_PROJECTION_RUNNING');
  await adminFetch(`${node.url}/projection/c/command/disable`, { method: 'POST' });
  for (const body of ['not json', '{"projectionExecutionTimeout":0}', '{"checkpointAfterMs":-1}', '{"emitEnabled":"yes"}', '[]']) {
    const response = await adminFetch(`${node.url}/projection/c/config`, { method: 'PUT', body });
    t.equal(response.status, 400, body);
    t.match(await response.json(), { code: 'SVCDB_ERR_PROJECTION_CONFIG_INVALID', message: /Failed to parse the projection config/ });
  }
  const ok = await adminFetch(`${node.url}/projection/c/config`, { method: 'PUT', body: '{"checkpointHandledThreshold":10,"projectionExecutionTimeout":500}' });
  t.equal(ok.status, 200);
  t.match(await (await adminFetch(`${node.url}/projection/c/config`)).json(), { checkpointHandledThreshold: 10, projectionExecutionTimeout: 500 });
});

t.test('commands: disable, enable, abort, reset rebuilds the state from the start', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('a-1', -2, newEvents(3));
  await createProjection(node.url, 'continuous', 'cmd', COUNTER);
  await waitCaughtUp(node, 'cmd');
  const command = async (name: string) => {
    const response = await adminFetch(`${node.url}/projection/cmd/command/${name}`, { method: 'POST' });
    t.equal(response.status, 200, name);
    t.same(await response.json(), { name: 'cmd' });
  };
  await command('disable');
  t.equal((await projectionInfo(node.url, 'cmd')).status, 'Stopped');
  await node.engine.append('a-1', -2, newEvents(2));
  t.same(await projectionState(node.url, 'cmd'), { count: 3 }, 'a stopped projection does not move');
  await command('enable');
  await waitCaughtUp(node, 'cmd');
  t.same(await projectionState(node.url, 'cmd'), { count: 5 }, 'enabled again, it resumes where it stopped');
  await command('abort');
  t.equal((await projectionInfo(node.url, 'cmd')).status, 'Aborted');
  await command('enable');
  await waitCaughtUp(node, 'cmd');
  t.same(await projectionState(node.url, 'cmd'), { count: 5 });
  // A query change while running is picked up by a reset, which processes everything again.
  await adminFetch(`${node.url}/projection/cmd/query`, { method: 'PUT', body: 'fromAll().when({$init: function(){ return {count:1000}; }, $any: function(s){ s.count++; }})' });
  await command('reset');
  await waitCaughtUp(node, 'cmd');
  t.same(await projectionState(node.url, 'cmd'), { count: 1005 }, 'reset rebuilt the state from the beginning of the log');
  t.equal((await projectionInfo(node.url, 'cmd')).epoch, 1, 'a reset starts a new epoch');
});

t.test('concurrent commands take effect one after the other: each bumps the version, the status agrees with enabled', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('a-1', -2, newEvents(3));
  await createProjection(node.url, 'continuous', 'race', COUNTER, { enabled: 'no' });
  const commands = Array.from({ length: 12 }, (_, round) => ['enable', 'disable', 'reset', 'abort', 'enable', 'disable'][round % 6]);
  for (const last of ['enable', 'disable']) {
    const before = await projectionInfo(node.url, 'race');
    const sent = [...commands, last];
    const statuses = await Promise.all(sent.map(async (command) =>
      (await adminFetch(`${node.url}/projection/race/command/${command}`, { method: 'POST' })).status));
    t.same(statuses, sent.map(() => 200), 'every command is accepted');
    // The last one sent may run before others: what holds is that the status agrees with the stored definition.
    const after = await projectionInfo(node.url, 'race');
    const definition = await readStream(node.url, '$projections-race');
    const stored = definition[definition.length - 1].data as { enabled: boolean; version: number };
    t.equal(after.version, Number(before.version) + sent.length, 'the version counts every command');
    t.same([stored.version, stored.enabled], [after.version, after.enabled], 'the stored definition is the last one');
    t.equal(after.epoch, Number(before.epoch) + sent.filter((command) => command === 'reset').length, 'each reset starts a new epoch');
    t.equal(after.status === 'Running', after.enabled, `status ${String(after.status)} agrees with enabled ${String(after.enabled)}`);
  }
});

t.test('delete: 200 with the name, as the commands answer; running is refused; the flags delete the streams; the name is free again', async (t) => {
  const node = await startProjectionsNode(t, { startStandardProjections: true }); // categories are read through $by_category's $ce- streams
  await node.engine.append('a-1', -2, newEvents(2));
  await createProjection(node.url, 'continuous', 'd', 'fromCategory("a").when({$init: function(){ return {n:0}; }, $any: function(s, e){ s.n++; emit("d-out", "T", {}); }}).outputState()',
    { emit: 'yes', trackemittedstreams: 'yes' });
  await waitCaughtUp(node, 'd');
  const running = await adminFetch(`${node.url}/projection/d`, { method: 'DELETE' });
  t.equal(running.status, 400);
  t.equal(await code(running), 'SVCDB_ERR_PROJECTION_RUNNING');
  await adminFetch(`${node.url}/projection/d/command/disable`, { method: 'POST' });
  t.ok((await readStream(node.url, '$projections-d-checkpoint')).length > 0, 'disabling wrote a checkpoint');
  const deleted = await adminFetch(`${node.url}/projection/d?deleteStateStream=true&deleteCheckpointStream=true&deleteEmittedStreams=true`, { method: 'DELETE' });
  t.equal(deleted.status, 200);
  t.match(deleted.headers.get('content-type'), /^application\/json/);
  t.same(await deleted.json(), { name: 'd' }, 'the body clients return and check');
  t.equal((await adminFetch(`${node.url}/projection/d`)).status, 404);
  t.same(await readStream(node.url, '$projections-d-checkpoint'), [], 'checkpoint stream deleted');
  t.same(await readStream(node.url, '$projections-d-result'), [], 'state stream deleted');
  t.same(await readStream(node.url, 'd-out'), [], 'emitted stream deleted');
  t.same(await readStream(node.url, '$projections-d-emittedstreams'), [], 'the list of emitted streams deleted');
  const registry = await readStream(node.url, '$projections-$all');
  t.same(registry.map((entry) => entry.eventType).filter((type) => type !== '$ProjectionCreated'), ['$ProjectionsInitialized', '$ProjectionDeleted']);
  await createProjection(node.url, 'continuous', 'd', COUNTER);
  await waitCaughtUp(node, 'd');
  t.same(await projectionState(node.url, 'd'), { count: 4 }, 'a new projection of the name starts afresh (a-1 and the events d-out held)');
});

t.test('a new projection of a deleted one\'s name starts afresh: its own $init, its own checkpoint, its own emits', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('u-1', -2, newEvents(3));
  const source = (init: string, stream: string, value: string) =>
    `fromStream("u-1").when({$init: function(){ return {${init}: 0}; }, $any: function(s, e){ s.${init}++; emit("${stream}", "Out", {v: "${value}"}); }})`;
  const values = async (stream: string) => (await readStream(node.url, stream)).map((entry) => (entry.data as { v: string }).v);
  const replace = async (deleteParams: string, init: string, stream: string, value: string) => {
    await adminFetch(`${node.url}/projection/re/command/disable`, { method: 'POST' });
    t.equal((await adminFetch(`${node.url}/projection/re?${deleteParams}`, { method: 'DELETE' })).status, 200);
    await createProjection(node.url, 'continuous', 're', source(init, stream, value), { emit: 'yes', trackemittedstreams: 'yes' });
    await waitCaughtUp(node, 're');
  };
  await createProjection(node.url, 'continuous', 're', source('first', 'shared-out', 'A'), { emit: 'yes', trackemittedstreams: 'yes' });
  await waitCaughtUp(node, 're');
  await replace('', 'second', 'shared-out', 'B');
  t.same(await projectionState(node.url, 're'), { second: 3 }, 'the deleted projection\'s checkpoint is not taken for the new one\'s');
  t.same(await values('shared-out'), ['A', 'A', 'A', 'B', 'B', 'B'], 'the new projection\'s emits are written');
  await replace('deleteCheckpointStream=true&deleteStateStream=true', 'third', 'third-out', 'C');
  t.same(await projectionState(node.url, 're'), { third: 3 });
  t.same(await values('third-out'), ['C', 'C', 'C']);
  await adminFetch(`${node.url}/projection/re/command/disable`, { method: 'POST' });
  t.equal((await adminFetch(`${node.url}/projection/re?deleteEmittedStreams=true`, { method: 'DELETE' })).status, 200);
  t.same(await values('third-out'), [], 'its own emitted stream is deleted');
  t.equal((await values('shared-out')).length, 6, 'the streams of the projections deleted before it are not its own to delete');
});

t.test('404 for unknown projections on every per-projection path', async (t) => {
  const node = await startProjectionsNode(t);
  const paths: Array<[string, string]> = [
    ['GET', ''], ['DELETE', ''], ['GET', '/state'], ['GET', '/result'], ['GET', '/statistics'], ['GET', '/query'], ['PUT', '/query'],
    ['GET', '/config'], ['PUT', '/config'], ['POST', '/command/enable'], ['POST', '/command/disable'], ['POST', '/command/reset'], ['POST', '/command/abort'],
  ];
  for (const [method, path] of paths) {
    const response = await adminFetch(`${node.url}/projection/nope${path}`, { method, body: method === 'GET' || method === 'DELETE' ? undefined : '{}' });
    t.equal(response.status, 404, `${method} ${path}`);
    t.equal(await code(response), 'SVCDB_ERR_PROJECTION_NOT_FOUND');
  }
});

t.test('401: anonymous everywhere; ordinary users may read but not create, command, configure or delete', async (t) => {
  const node = await startProjectionsNode(t);
  await createProjection(node.url, 'continuous', 'acl', COUNTER);
  const anonymous = await fetch(`${node.url}/projections/any`);
  t.equal(anonymous.status, 401);
  const user = await createUser(node.url, { loginName: 'reader', password: 'secret1' });
  const as = (path: string, init: RequestInit = {}) => fetch(`${node.url}${path}`, { ...init, headers: { authorization: user } });
  t.equal((await as('/projections/any')).status, 200, 'a user may list');
  t.equal((await as('/projection/acl/state')).status, 200, 'a user may read state');
  for (const [method, path] of [
    ['POST', '/projections/continuous?name=x'], ['POST', '/projection/acl/command/disable'], ['PUT', '/projection/acl/config'],
    ['GET', '/projection/acl/config'], ['DELETE', '/projection/acl'], ['PUT', '/projection/acl/query'],
  ]) {
    const response = await as(path, { method, body: method === 'DELETE' || method === 'GET' ? undefined : COUNTER });
    t.equal(response.status, 401, `${method} ${path}`);
    t.equal(await code(response), 'SVCDB_ERR_ACCESS_DENIED');
  }
  const ops = await fetch(`${node.url}/projection/acl/command/disable?enableRunAs=true`, { method: 'POST', headers: { authorization: OPS_AUTH } });
  t.equal(ops.status, 200, 'ops may command');
  t.equal(ADMIN_AUTH.length > 0, true);
});

t.test('POST /projections/read-events reads what a query definition selects', async (t) => {
  const node = await startProjectionsNode(t, { startStandardProjections: true }); // categories are read through $by_category's $ce- streams
  await node.engine.append('r-1', -2, newEvents(3));
  await node.engine.append('other-1', -2, newEvents(2));
  await waitCaughtUp(node, '$by_category');
  const read = async (body: unknown) => adminFetch(`${node.url}/projections/read-events`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const first = await (await read({ query: { streams: ['r-1'] }, maxEvents: 2 })).json() as {
    readerPosition: unknown; events: Array<{ eventStreamId: string; eventNumber: number; isJson: boolean }>;
  };
  t.same(first.events.map((event) => [event.eventStreamId, event.eventNumber]), [['r-1', 0], ['r-1', 1]]);
  const rest = await (await read({ query: { streams: ['r-1'] }, position: first.readerPosition, maxEvents: 10 })).json() as { events: Array<{ eventNumber: number }> };
  t.same(rest.events.map((event) => event.eventNumber), [2], 'reading on from readerPosition');
  const all = await (await read({ query: { all: true }, maxEvents: 100 })).json() as { events: unknown[] };
  t.equal(all.events.length, 5);
  const categories = await (await read({ query: { categories: ['other'] }, maxEvents: 100 })).json() as { events: Array<{ eventStreamId: string }> };
  t.same(categories.events.map((event) => event.eventStreamId), ['other-1', 'other-1'], 'the events $ce-other links to');
  for (const body of [{ query: {} }, { query: { streams: 'r-1' } }, { query: { all: true }, maxEvents: 0 }, 'x']) {
    const response = await read(body);
    t.equal(response.status, 400, JSON.stringify(body));
    t.equal(await code(response), 'SVCDB_ERR_PROJECTION_REQUEST_INVALID');
  }
});

t.test('one-time projections complete; transient ones are not stored', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('a-1', -2, newEvents(4));
  await createProjection(node.url, 'onetime', 'once', COUNTER);
  await createProjection(node.url, 'transient', 'temp', COUNTER);
  await waitStatus(node.url, 'once', 'Completed');
  await waitStatus(node.url, 'temp', 'Completed');
  t.same(await projectionState(node.url, 'once'), { count: 4 });
  t.same(await projectionState(node.url, 'temp'), { count: 4 });
  t.equal((await projectionInfo(node.url, 'once')).progress, 100);
  await node.engine.append('a-1', -2, newEvents(1));
  t.same(await projectionState(node.url, 'once'), { count: 4 }, 'a completed projection reads no further');
  const registry = await readStream(node.url, '$projections-$all');
  const created = registry.filter((entry) => entry.eventType === '$ProjectionCreated').map((entry) => entry.data);
  t.ok(created.includes('once') && !created.includes('temp'), 'only the one-time projection is in the registry');
});

t.test('a projection is held to the stream rights of the user who created or last enabled it', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('r-1', -2, newEvents(2));
  await node.engine.setStreamMetadata('locked-1', -2, Buffer.from('{"$acl":{"$w":"$admins"}}'), crypto.randomUUID());
  const create = (name: string, source: string, auth: string, params: string) =>
    fetch(`${node.url}/projections/continuous?name=${name}&type=JS&${params}`, { method: 'POST', body: source, headers: { authorization: auth } });
  const command = (name: string, what: string, auth: string) =>
    fetch(`${node.url}/projection/${name}/command/${what}`, { method: 'POST', headers: { authorization: auth } });
  t.equal((await create('ops-all', COUNTER, OPS_AUTH, '')).status, 201);
  t.match(await waitStatus(node.url, 'ops-all', 'Faulted'), { stateReason: /runs as user ops .*ops may not read stream \$all/ }, 'ops may not read $all');
  const emitter = 'fromStream("r-1").when({$any: function(s, e){ emit("locked-1", "T", {}); }})';
  t.equal((await create('ops-emit', emitter, OPS_AUTH, 'emit=yes')).status, 201);
  t.match(await waitStatus(node.url, 'ops-emit', 'Faulted'), { stateReason: /ops may not write to stream locked-1/ });
  t.same(await readStream(node.url, 'locked-1'), [], 'nothing was written');
  t.equal((await create('admin-emit', emitter, ADMIN_AUTH, 'emit=yes&enabled=no')).status, 201);
  t.equal((await command('admin-emit', 'enable', OPS_AUTH)).status, 200);
  t.match(await waitStatus(node.url, 'admin-emit', 'Faulted'), { stateReason: /ops may not write to stream locked-1/ }, 'enabled by ops, it runs as ops');
  t.same(await readStream(node.url, 'locked-1'), [], 'nothing was written');
  t.equal((await command('admin-emit', 'enable', ADMIN_AUTH)).status, 200);
  await waitCaughtUp(node, 'admin-emit');
  t.equal((await readStream(node.url, 'locked-1')).length, 2, 'enabled by an admin, it may write it');
  t.equal((await command('ops-all', 'disable', ADMIN_AUTH)).status, 200);
  t.equal((await fetch(`${node.url}/projection/ops-all/command/enable?enableRunAs=yes`, { method: 'POST', headers: { authorization: ADMIN_AUTH } })).status, 200);
  await waitCaughtUp(node, 'ops-all');
  t.same(await projectionState(node.url, 'ops-all'), { count: 4 }, 'enabled by an admin, it may read $all');
});
