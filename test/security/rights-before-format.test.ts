// Content negotiation never answers before the access check: a caller without the right to read
// a stream, its metadata, a user or the users list is told 401, not 406, whatever it asks the
// format to be; a caller with the right still gets the 406.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { Errors } from '../../src/common/errors.js';
import { adminFetch, ADMIN_AUTH, createUser } from '../helpers/auth.js';
import { startNode } from '../helpers/node.js';

const node = await startNode(t);
const alice = await createUser(node.url, { loginName: 'alice', password: 'secret' });

function expectStatus(response: Response, status: number, what: string): void {
  if (response.status !== status) throw new Error(`${what}: ${response.status}`);
}

async function setUp(): Promise<void> {
  const append = await adminFetch(`${node.url}/streams/private`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'svc-eventtype': 'T', 'svc-eventid': randomUUID() }, body: '{}',
  });
  expectStatus(append, 201, 'the append');
  const acl = await adminFetch(`${node.url}/streams/private/metadata`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'svc-eventid': randomUUID() },
    body: JSON.stringify({ $acl: { $r: '$admins', $mr: '$admins' } }),
  });
  expectStatus(acl, 201, 'the ACL');
  const group = await adminFetch(`${node.url}/subscriptions/private/group`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
  expectStatus(group, 201, 'the group');
}
await setUp();

async function answer(path: string, authorization: string): Promise<{ status: number; code: unknown }> {
  const response = await fetch(`${node.url}${path}`, { headers: { authorization, accept: 'text/x-nothing-offers-this' } });
  return { status: response.status, code: (await response.json() as { code?: unknown }).code };
}

const guarded = [
  '/streams/%24all', '/streams/%24all/head/backward/20', '/streams/%24settings', '/streams/private', '/streams/private/0',
  '/streams/private/0/forward/20', '/streams/private/metadata', '/streams/%24%24private', '/users', '/users/admin',
  '/subscriptions/private/group/1',
];

t.test('a reader without the right is told 401, not 406', async (t) => {
  for (const path of guarded) {
    t.same(await answer(path, alice), { status: 401, code: Errors.accessDenied.code }, `alice ${path}`);
  }
});

t.test('a reader with the right still gets the 406', async (t) => {
  for (const path of guarded) {
    t.same(await answer(path, ADMIN_AUTH), { status: 406, code: Errors.httpNotAcceptable.code }, `admin ${path}`);
  }
  t.same(await answer('/users/alice', alice), { status: 406, code: Errors.httpNotAcceptable.code }, 'alice reading herself');
});
