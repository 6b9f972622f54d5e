/**
 * Idempotency, the users API's delete reply, routing before bodies and /info, as clients of the
 * wire protocol expect them.
 */
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { adminFetch } from '../helpers/auth.js';
import { startNode, type TestNode } from '../helpers/node.js';

function batch(ids: string[]): string {
  return JSON.stringify(ids.map((eventId) => ({ eventId, eventType: 'T', data: { id: eventId } })));
}

function post(node: TestNode, stream: string, ids: string[], expectedVersion?: string): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/vnd.svc.events+json' };
  if (expectedVersion !== undefined) headers['svc-expectedversion'] = expectedVersion;
  return adminFetch(`${node.url}/streams/${stream}`, { method: 'POST', body: batch(ids), headers });
}

t.test('idempotent repeats: a full batch, a suffix of it with any, and a partial overlap as a wrong expected version', async (t) => {
  const node = await startNode(t);
  const ids = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  await post(node, 'idem', [randomUUID()]);
  t.equal((await post(node, 'idem', ids, '0')).headers.get('location'), `${node.url}/streams/idem/1`);
  for (const expected of ['0', '-2', undefined]) {
    const repeat = await post(node, 'idem', ids, expected);
    t.equal(repeat.status, 201, `full batch again with ${expected ?? 'no header'}`);
    t.equal(repeat.headers.get('location'), `${node.url}/streams/idem/1`, 'the original Location');
  }
  const suffix = await post(node, 'idem', ids.slice(2));
  t.equal(suffix.status, 201, 'a later part of the write, expected version any');
  t.equal(suffix.headers.get('location'), `${node.url}/streams/idem/3`, 'at its place in the original write');
  t.equal((await post(node, 'idem', ids.slice(1, 3), '0')).status, 400, 'exact version: the ids must start at N+1');
  const exactSuffix = await post(node, 'idem', ids.slice(2), '2');
  t.equal(exactSuffix.headers.get('location'), `${node.url}/streams/idem/3`, 'exact version N and the ids at N+1…');
  for (const expected of ['0', '-2']) {
    const partial = await post(node, 'idem', [...ids.slice(2), randomUUID()], expected);
    t.equal(partial.status, 400, `partial overlap with ${expected}`);
    t.equal(partial.statusText, 'Wrong expected EventNumber');
    t.equal(partial.headers.get('svc-currentversion'), '4');
    t.equal(((await partial.json()) as { code: string }).code, 'SVCDB_ERR_STREAM_WRONG_EXPECTED_VERSION');
  }
  t.equal(node.engine.readStreamForward('idem', 0, 20).lastEventNumber, 4, 'nothing written by the repeats');
});

t.test('DELETE /users/{login} is 200 with {loginName, success, error}; /users/%24current is $current', async (t) => {
  const node = await startNode(t);
  const created = await adminFetch(`${node.url}/users/`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ loginName: 'leaving', fullName: 'L', groups: [], password: 'pw' }),
  });
  t.equal(created.status, 201);
  const deleted = await adminFetch(`${node.url}/users/leaving`, { method: 'DELETE' });
  t.equal(deleted.status, 200);
  t.same(await deleted.json(), { loginName: 'leaving', success: true, error: 'Success' });
  t.equal((await adminFetch(`${node.url}/users/leaving`)).status, 404, 'the user is gone');
  const current = await adminFetch(`${node.url}/users/%24current`);
  t.equal(current.status, 200);
  t.match(await current.json(), { data: { loginName: 'admin' }, success: true });
});

t.test('an unknown path or method is 404 or 405 whatever body it carries', async (t) => {
  const node = await startNode(t);
  const bodies: Array<[string, string]> = [['{not json', 'application/json'], ['x', 'image/png'], ['<a', 'text/xml']];
  for (const [body, type] of bodies) {
    const nowhere = await adminFetch(`${node.url}/nowhere`, { method: 'POST', body, headers: { 'content-type': type } });
    t.equal(nowhere.status, 404, `unknown path, ${type}`);
    t.equal(((await nowhere.json()) as { code: string }).code, 'SVCDB_ERR_HTTP_NOT_FOUND');
    const usersWrong = await adminFetch(`${node.url}/users/$current`, { method: 'PUT', body, headers: { 'content-type': type } });
    t.equal(usersWrong.status, 405, `wrong method on a users route, ${type}`);
    t.equal(usersWrong.headers.get('allow'), 'GET, OPTIONS');
    const infoWrong = await adminFetch(`${node.url}/info`, { method: 'POST', body, headers: { 'content-type': type } });
    t.equal(infoWrong.status, 405, `wrong method on /info, ${type}`);
  }
});

t.test('/info: atomPub is on while the streams API is served', async (t) => {
  const node = await startNode(t);
  const info = await (await fetch(`${node.url}/info`)).json() as { features: Record<string, boolean> };
  t.same(info.features, { projections: false, userManagement: true, atomPub: true });
  t.equal((await adminFetch(`${node.url}/streams/$all`, { headers: { accept: 'application/vnd.svc.atom+json' } })).status, 200, 'and the Atom feeds answer');
});
