// The users API over HTTP: every endpoint with no, wrong and right credentials, the wire note's
// shapes, both spellings of body fields, and changes that hold from the very next request.
import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { ADMIN_AUTH, OPS_AUTH, basicAuth, createUser as createTestUser } from '../helpers/auth.js';
import { startNode } from '../helpers/node.js';

const node = await startNode(t);
const WRONG_AUTH = basicAuth('admin', 'not-the-password');

interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

async function call(method: string, path: string, auth: string | undefined, body?: unknown): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (auth !== undefined) headers.authorization = auth;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(node.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}

function createUser(login: string, password: string, groups: string[] = []): Promise<string> {
  return createTestUser(node.url, { loginName: login, fullName: `Full ${login}`, groups, password });
}

function unique(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

const denied = (t: Test, reply: Reply, code: string, what: string) => {
  t.equal(reply.status, 401, `${what}: 401`);
  t.equal(reply.headers.get('www-authenticate'), 'Basic realm="svcdb", charset="UTF-8"', `${what}: a challenge`);
  t.equal(reply.body.code, code, `${what}: ${code}`);
  t.equal(reply.body.success, false);
  t.equal(reply.body.error, 'Unauthorized');
};

t.test('the default users, listed in the wire note\'s shape', async (t) => {
  const reply = await call('GET', '/users', ADMIN_AUTH);
  t.equal(reply.status, 200);
  t.equal(reply.body.success, true);
  t.equal(reply.body.error, 'Success');
  const admin = reply.body.data.find((user: { loginName: string }) => user.loginName === 'admin');
  t.same(admin, {
    loginName: 'admin', fullName: 'svcdb Administrator', groups: ['$admins'], disabled: false, dateLastUpdated: null,
    links: [
      { href: `${node.url}/users/admin/command/reset-password`, rel: 'reset-password' },
      { href: `${node.url}/users/admin/command/change-password`, rel: 'change-password' },
      { href: `${node.url}/users/admin`, rel: 'edit' },
      { href: `${node.url}/users/admin`, rel: 'delete' },
      { href: `${node.url}/users/admin/command/disable`, rel: 'disable' },
    ],
  });
  t.match(reply.body.data.map((user: { loginName: string }) => user.loginName), ['admin', 'ops']);
  t.same((await call('GET', '/users/', ADMIN_AUTH)).body, reply.body, '/users/ is the same list');
  t.notMatch(JSON.stringify(reply.body), /"(salt|hash|hashAlgorithm|password)"/, 'no password material');
});

t.test('every endpoint refuses missing and wrong credentials, and a user who is not an admin', async (t) => {
  const login = unique('plain');
  const plain = await createUser(login, 'secret-1');
  const endpoints: Array<[string, string, unknown?]> = [
    ['GET', '/users'], ['GET', '/users/'], ['POST', '/users/', { loginName: unique('x'), password: 'p' }],
    ['GET', '/users/admin'], ['PUT', '/users/admin', { fullName: 'x' }], ['DELETE', '/users/admin'],
    ['PUT', '/users/admin/command/enable'], ['POST', '/users/admin/command/disable'],
    ['POST', '/users/admin/command/reset-password', { newPassword: 'x' }],
  ];
  for (const [method, path, body] of endpoints) {
    denied(t, await call(method, path, undefined, body), 'SVCDB_ERR_AUTH_REQUIRED', `${method} ${path} anonymous`);
    denied(t, await call(method, path, WRONG_AUTH, body), 'SVCDB_ERR_AUTH_CREDENTIALS_INVALID', `${method} ${path} wrong password`);
    denied(t, await call(method, path, plain, body), 'SVCDB_ERR_ACCESS_DENIED', `${method} ${path} as ${login}`);
  }
  denied(t, await call('GET', '/users/$current', undefined), 'SVCDB_ERR_AUTH_REQUIRED', '$current anonymous');
  denied(t, await call('GET', '/users/$current', WRONG_AUTH), 'SVCDB_ERR_AUTH_CREDENTIALS_INVALID', '$current wrong password');
  const admin = await call('GET', '/users/admin', ADMIN_AUTH);
  t.equal(admin.body.data.disabled, false, 'the admin is untouched by all of that');
});

t.test('create: 201 with Location, idempotent with the same password, 409 with another', async (t) => {
  const login = unique('new');
  const body = { LoginName: login, FullName: 'New User', Groups: ['readers'], Password: 'pw-1' };
  const created = await call('POST', '/users/', ADMIN_AUTH, body);
  t.equal(created.status, 201);
  t.equal(created.headers.get('location'), `${node.url}/users/${login}`);
  t.same(created.body, { loginName: login, success: true, error: 'Success' });
  t.equal((await call('POST', '/users', ADMIN_AUTH, body)).status, 201, 'the same user again: success');
  const conflict = await call('POST', '/users/', ADMIN_AUTH, { ...body, Password: 'other' });
  t.equal(conflict.status, 409);
  t.match(conflict.body, { code: 'SVCDB_ERR_USER_CONFLICT', success: false, error: 'Conflict' });
  const read = await call('GET', `/users/${login}`, basicAuth(login, 'pw-1'));
  t.match(read.body.data, { loginName: login, fullName: 'New User', groups: ['readers'], disabled: false }, 'PascalCase fields were read');
});

// Regression: the requests that lost the race to create a login got the storage's expected-version
// error about $user-<login> instead of the users API's answer to a second create.
t.test('concurrent creates of one login: the same password all succeed, another password is a 409', async (t) => {
  const createMany = (login: string, passwordOf: (index: number) => string) => Promise.all(
    Array.from({ length: 6 }, (_, index) => call('POST', '/users/', ADMIN_AUTH, { loginName: login, password: passwordOf(index) })));
  const same = unique('same');
  const retries = await createMany(same, () => 'same-pw');
  t.same(retries.map((reply) => reply.status), [201, 201, 201, 201, 201, 201], 'every retry of the same create succeeds');
  t.ok(retries.every((reply) => reply.body.success === true));
  t.equal(node.engine.readStreamForward(`$user-${same}`, 0, 10).events.length, 1, 'one $UserCreated, nothing else');

  const raced = unique('race');
  const replies = await createMany(raced, (index) => `pw-${index}`);
  const winners = replies.flatMap((reply, index) => (reply.status === 201 ? [index] : []));
  t.equal(winners.length, 1, 'one create wins');
  for (const reply of replies.filter((reply) => reply.status !== 201)) {
    t.equal(reply.status, 409);
    t.match(reply.body, { code: 'SVCDB_ERR_USER_CONFLICT', success: false, error: 'Conflict' });
  }
  t.equal((await call('GET', '/users/$current', basicAuth(raced, `pw-${winners[0]}`))).status, 200, 'the winner\'s password holds');
});

t.test('bad bodies are coded 400s and create nothing', async (t) => {
  const login = unique('bad');
  for (const [body, what] of [
    [{ password: 'p' }, 'no login name'], [{ loginName: login }, 'no password'], [{ loginName: login, password: '' }, 'empty password'],
    [{ loginName: 'a:b', password: 'p' }, 'a colon'], [{ loginName: 'a/b', password: 'p' }, 'a slash'], [{ loginName: '$x', password: 'p' }, 'a leading $'],
    // Dot segments: URL resolvers remove them, so no link or request could reach such a user.
    [{ loginName: '.', password: 'p' }, 'a dot'], [{ loginName: '..', password: 'p' }, 'two dots'],
    [{ loginName: login, password: 'p', groups: 'g' }, 'groups not a list'], [{ loginName: login, password: 'p', groups: [1] }, 'a group not a string'],
    [{ loginName: 5, password: 'p' }, 'a number as login'], [[1, 2], 'not an object'],
  ] as Array<[unknown, string]>) {
    const reply = await call('POST', '/users/', ADMIN_AUTH, body);
    t.equal(reply.status, 400, what);
    t.equal(reply.body.code, 'SVCDB_ERR_USER_INVALID', what);
  }
  const broken = await fetch(`${node.url}/users/`, { method: 'POST', headers: { authorization: ADMIN_AUTH, 'content-type': 'application/json' }, body: '{"loginName":' });
  t.equal(broken.status, 400, 'malformed JSON');
  t.equal((await call('GET', `/users/${login}`, ADMIN_AUTH)).status, 404, 'nothing was created');
  t.equal(node.engine.readEvent('$user-..', -1).status, 'notFound', 'no user ".." either');
});

// Regression: a JSON body sent as text/plain was refused with "the body must be a JSON object",
// which sent the user looking at the body instead of the header.
t.test('a body sent as text/plain is a 415 naming the Content-Type, like any type the users API does not speak', async (t) => {
  const login = unique('plain');
  const send = (path: string, body: unknown) => fetch(node.url + path, {
    method: 'POST', headers: { authorization: ADMIN_AUTH, 'content-type': 'text/plain' }, body: JSON.stringify(body),
  });
  for (const [path, body] of [['/users/', { loginName: login, password: 'pw' }], ['/users/ops/command/reset-password', { newPassword: 'x' }]] as const) {
    const reply = await send(path, body);
    t.equal(reply.status, 415, `${path}: 415`);
    const error = await reply.json() as { code: string; message: string; success: boolean };
    t.equal(error.code, 'SVCDB_ERR_HTTP_MEDIA_TYPE', path);
    t.match(error.message, /text\/plain/, `${path}: the message names the type`);
    t.equal(error.success, false);
  }
  t.equal((await call('GET', `/users/${login}`, ADMIN_AUTH)).status, 404, 'nothing was created');
  t.equal((await call('GET', '/users/$current', OPS_AUTH)).status, 200, 'the password was not reset');
});

t.test('read: admin or self; $current; 404 for an unknown user', async (t) => {
  const login = unique('self');
  const self = await createUser(login, 'pw', ['team']);
  const own = await call('GET', `/users/${login}`, self);
  t.equal(own.status, 200);
  t.equal(own.body.data.links.at(-1).rel, 'disable');
  const current = await call('GET', '/users/$current', self);
  t.same(current.body, { data: { loginName: login, fullName: `Full ${login}`, groups: ['team'], disabled: false, dateLastUpdated: null }, success: true, error: 'Success' });
  const other = await call('GET', '/users/ops', self);
  t.equal(other.body.code, 'SVCDB_ERR_ACCESS_DENIED', 'another user is not for a plain user');
  const missing = await call('GET', '/users/nobody-here', ADMIN_AUTH);
  t.equal(missing.status, 404);
  t.match(missing.body, { code: 'SVCDB_ERR_USER_NOT_FOUND', success: false, error: 'NotFound' });
});

t.test('update changes full name and groups, and the groups hold from the next request', async (t) => {
  const login = unique('upd');
  const auth = await createUser(login, 'pw');
  t.equal((await call('GET', '/users/', auth)).status, 401, 'not an admin yet');
  const updated = await call('PUT', `/users/${login}`, ADMIN_AUTH, { FullName: 'Renamed', Groups: ['$admins'] });
  t.same(updated.body, { loginName: login, success: true, error: 'Success' });
  t.equal((await call('GET', '/users/', auth)).status, 200, 'an admin at once');
  t.match((await call('GET', `/users/${login}`, auth)).body.data, { fullName: 'Renamed', groups: ['$admins'] });
  t.equal((await call('PUT', '/users/nobody-here', ADMIN_AUTH, { fullName: 'x' })).status, 404);
  t.equal((await call('PUT', `/users/${login}`, ADMIN_AUTH, { groups: 'x' })).status, 400);
});

// Regression: a PUT without a body was refused with "the body must be a JSON object".
t.test('update without a body is an empty change: 200, nothing changed; 404 for an unknown user', async (t) => {
  const login = unique('nobody');
  await createUser(login, 'pw', ['team']);
  const bare = await call('PUT', `/users/${login}`, ADMIN_AUTH);
  t.equal(bare.status, 200, 'no body, no Content-Type');
  t.same(bare.body, { loginName: login, success: true, error: 'Success' });
  const typed = await fetch(`${node.url}/users/${login}`, { method: 'PUT', headers: { authorization: ADMIN_AUTH, 'content-type': 'application/json' } });
  t.equal(typed.status, 200, 'a JSON Content-Type and no body');
  t.match((await call('GET', `/users/${login}`, ADMIN_AUTH)).body.data, { fullName: `Full ${login}`, groups: ['team'] }, 'unchanged');
  t.equal((await call('PUT', '/users/nobody-here', ADMIN_AUTH)).status, 404);
});

t.test('disable refuses the user at once; enable lets it back; PUT and POST both work', async (t) => {
  const login = unique('dis');
  const auth = await createUser(login, 'pw');
  t.equal((await call('GET', '/users/$current', auth)).status, 200, 'cached after a first request');
  t.equal((await call('PUT', `/users/${login}/command/disable`, ADMIN_AUTH)).status, 200);
  denied(t, await call('GET', '/users/$current', auth), 'SVCDB_ERR_AUTH_USER_DISABLED', 'disabled');
  t.equal((await call('GET', `/users/${login}`, ADMIN_AUTH)).body.data.links.at(-1).rel, 'enable');
  t.equal((await call('POST', `/users/${login}/command/enable`, ADMIN_AUTH)).status, 200);
  t.equal((await call('GET', '/users/$current', auth)).status, 200, 'enabled again');
  t.equal((await call('POST', `/users/${login}/command/disable`, ADMIN_AUTH)).status, 200);
  t.equal((await call('GET', '/users/$current', auth)).status, 401);
  t.equal((await call('PUT', '/users/nobody-here/command/enable', ADMIN_AUTH)).status, 404);
});

t.test('reset-password (admin) and change-password (self) end the old password at once', async (t) => {
  const login = unique('pw');
  const first = await createUser(login, 'first');
  t.equal((await call('GET', '/users/$current', first)).status, 200);
  const reset = await call('POST', `/users/${login}/command/reset-password`, ADMIN_AUTH, { NewPassword: 'second' });
  t.equal(reset.status, 200);
  t.equal((await call('GET', '/users/$current', first)).status, 401, 'the old password is refused at once');
  const second = basicAuth(login, 'second');
  t.equal((await call('GET', '/users/$current', second)).status, 200);

  const wrong = await call('POST', `/users/${login}/command/change-password`, second, { currentPassword: 'nope', newPassword: 'third' });
  t.equal(wrong.status, 401);
  t.equal(wrong.body.code, 'SVCDB_ERR_USER_PASSWORD_WRONG');
  t.equal((await call('GET', '/users/$current', second)).status, 200, 'a wrong current password changes nothing');
  const changed = await call('POST', `/users/${login}/command/change-password`, second, { CurrentPassword: 'second', NewPassword: 'third' });
  t.equal(changed.status, 200);
  t.equal((await call('GET', '/users/$current', second)).status, 401, 'the old password is refused at once');
  t.equal((await call('GET', '/users/$current', basicAuth(login, 'third'))).status, 200);
  t.equal((await call('POST', `/users/${login}/command/reset-password`, ADMIN_AUTH, {})).status, 400, 'reset needs a new password');
});

t.test('delete: 200 with {loginName, success, error}, the user can no longer sign in, and the login can be created again', async (t) => {
  const login = unique('del');
  const auth = await createUser(login, 'pw');
  t.equal((await call('GET', '/users/$current', auth)).status, 200);
  const deleted = await call('DELETE', `/users/${login}`, ADMIN_AUTH);
  t.equal(deleted.status, 200);
  t.same(deleted.body, { loginName: login, success: true, error: 'Success' });
  t.equal((await call('GET', '/users/$current', auth)).status, 401, 'refused at once');
  t.equal((await call('GET', `/users/${login}`, ADMIN_AUTH)).status, 404);
  t.notOk((await call('GET', '/users', ADMIN_AUTH)).body.data.some((user: { loginName: string }) => user.loginName === login), 'not listed');
  t.equal((await call('DELETE', `/users/${login}`, ADMIN_AUTH)).status, 404, 'deleting twice: 404');
  const again = await createUser(login, 'new-pw', ['fresh']);
  t.match((await call('GET', '/users/$current', again)).body.data, { loginName: login, groups: ['fresh'] }, 'created anew');
  t.equal((await call('GET', '/users/$current', auth)).status, 401, 'with the new password only');
});

t.test('users live in the log as the wire note lays them out', async (t) => {
  const login = unique('log');
  await createUser(login, 'pw', ['g']);
  await call('POST', `/users/${login}/command/disable`, ADMIN_AUTH);
  const events = node.engine.readStreamForward(`$user-${login}`, 0, 10).events;
  t.same(events.map((event) => event.eventType), ['$UserCreated', '$UserUpdated']);
  const last = JSON.parse(events[1].data.toString());
  t.match(last, { loginName: login, fullName: `Full ${login}`, groups: ['g'], disabled: true, salt: String, hash: String });
  t.notMatch(events[1].data.toString(), /"pw"/, 'never the password itself');
  t.match(node.engine.getStreamMetadata(`$user-${login}`).metadata.acl, { $w: '$admins', $d: '$admins', $mw: '$admins' });
  const listed = node.engine.readStreamBackward('$users', -1, 1).events[0];
  t.equal(listed.eventType, '$User');
  t.equal(listed.data.toString(), login, 'the bare login name');
  const notice = node.engine.readStreamBackward('$users-password-notifications', -1, 1).events[0];
  t.same([notice.eventType, JSON.parse(notice.data.toString())], ['$PasswordChanged', { loginName: login }]);
  t.equal(node.engine.getStreamMetadata('$users-password-notifications').metadata.maxAgeSeconds, 3600);
});

t.test('change-password succeeds for any caller who gives the current password; a wrong one is a 401 that counts as a failed login', async (t) => {
  const login = unique('victim');
  await createUser(login, 'v1');
  const other = await createUser(unique('alice'), 'a1');
  const byOther = await call('POST', `/users/${login}/command/change-password`, other, { currentPassword: 'v1', newPassword: 'v2' });
  t.equal(byOther.status, 200, 'another user who knows the password');
  t.same(byOther.body, { loginName: login, success: true, error: 'Success' });
  t.equal((await call('GET', '/users/$current', basicAuth(login, 'v2'))).status, 200, 'the new password holds');
  const byAdmin = await call('POST', `/users/${login}/command/change-password`, ADMIN_AUTH, { currentPassword: 'v2', newPassword: 'v3' });
  t.equal(byAdmin.status, 200, 'an admin who gives it');
  const anonymous = await call('POST', `/users/${login}/command/change-password`, undefined, { currentPassword: 'v3', newPassword: 'v4' });
  t.equal(anonymous.body.code, 'SVCDB_ERR_AUTH_REQUIRED', 'the users API is for signed-in callers');
  const wrong = await call('POST', `/users/${login}/command/change-password`, other, { currentPassword: 'v2', newPassword: 'x' });
  t.equal(wrong.status, 401);
  t.equal(wrong.body.code, 'SVCDB_ERR_USER_PASSWORD_WRONG');
  const unknown = await call('POST', '/users/nobody-at-all/command/change-password', other, { currentPassword: 'v2', newPassword: 'x' });
  t.same([unknown.status, unknown.body.code], [401, 'SVCDB_ERR_USER_PASSWORD_WRONG'], 'an unknown login answers as a wrong password');
  t.equal((await call('GET', '/users/$current', basicAuth(login, 'v3'))).status, 200, 'wrong attempts changed nothing');
});

t.test('guessing a password through change-password meets the failed-login throttle', async (t) => {
  const guarded = await startNode(t, { security: { failedLoginsMax: 3 } });
  await fetch(`${guarded.url}/users`, {
    method: 'POST', headers: { authorization: ADMIN_AUTH, 'content-type': 'application/json' },
    body: JSON.stringify({ loginName: 'target', fullName: 'T', groups: [], password: 'secret' }),
  });
  await fetch(`${guarded.url}/users`, {
    method: 'POST', headers: { authorization: ADMIN_AUTH, 'content-type': 'application/json' },
    body: JSON.stringify({ loginName: 'guesser', fullName: 'G', groups: [], password: 'mine' }),
  });
  const attempt = (currentPassword: string) => fetch(`${guarded.url}/users/target/command/change-password`, {
    method: 'POST', headers: { authorization: basicAuth('guesser', 'mine'), 'content-type': 'application/json' }, body: JSON.stringify({ currentPassword, newPassword: 'x' }),
  });
  const statuses: number[] = [];
  for (const guess of ['a', 'b', 'c', 'secret']) statuses.push((await attempt(guess)).status);
  t.same(statuses, [401, 401, 401, 429], 'the right password is refused once the address is throttled');
  const throttled = await attempt('secret');
  t.equal((await throttled.json() as { code: string }).code, 'SVCDB_ERR_AUTH_FAILURES_THROTTLED');
});
