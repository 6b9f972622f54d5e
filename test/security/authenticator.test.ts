// Passwords and the credential cache: scrypt hashes that verify only their own password, one
// scrypt per login until a change drops the cache, and no cached entry from a verification that
// raced a change.
import t, { type Test } from 'tap';
import { Authenticator, parseBasic } from '../../src/daemon/security/authenticator.js';
import { hashPassword, verifyPassword } from '../../src/daemon/security/password-hash.js';
import { UserStore } from '../../src/daemon/security/user-store.js';
import { basicAuth } from '../helpers/auth.js';
import { openEngine, tempDirectory } from '../helpers/engine.js';

/** A real user store with `users` in it, and an authenticator over it that counts its user lookups. */
async function countingAuthenticator(t: Test, users: Array<{ login: string; password: string; groups?: string[]; fullName?: string }>) {
  const engine = await openEngine(tempDirectory(t));
  const store = new UserStore(engine);
  for (const { login, password, groups = [], fullName = '' } of users) {
    await store.create({ loginName: login, fullName, groups, disabled: false, password: await hashPassword(password) });
  }
  const counter = { lookups: 0 };
  const authenticator = new Authenticator({ find: (login) => (counter.lookups++, store.find(login)) });
  return { store, authenticator, lookups: () => counter.lookups };
}

t.test('scrypt hashes: salted, and verifying only the password they were made from', async (t) => {
  const first = await hashPassword('pässwörd');
  const second = await hashPassword('pässwörd');
  t.match(first.algorithm, /^scrypt:\d+:\d+:\d+$/);
  t.not(first.salt, second.salt, 'a new salt per hash');
  t.not(first.hash, second.hash, 'so the same password hashes differently');
  t.equal(await verifyPassword('pässwörd', first), true);
  t.equal(await verifyPassword('passwörd', first), false);
  t.equal(await verifyPassword('', first), false);
  t.equal(await verifyPassword('pässwörd', { ...first, algorithm: 'md5' }), false, 'an unknown algorithm never verifies');
  t.equal(await verifyPassword('pässwörd', { ...first, hash: 'AAAA' }), false, 'a truncated hash never verifies');
});

t.test('Basic credentials: the password may hold colons; the login may not be empty', async (t) => {
  t.same(parseBasic(basicAuth('user', 'a:b:c')), { login: 'user', password: 'a:b:c' });
  t.same(parseBasic(`bAsIc ${Buffer.from('u:').toString('base64')}`), { login: 'u', password: '' }, 'the scheme is case-insensitive');
  for (const header of ['Digest x', 'Basic', `Basic ${Buffer.from(':p').toString('base64')}`]) {
    t.throws(() => parseBasic(header), { code: 'SVCDB_ERR_AUTH_CREDENTIALS_INVALID' }, header);
  }
});

t.test('a cache hit reads no user and runs no scrypt; a change drops the cache', async (t) => {
  const { authenticator, lookups } = await countingAuthenticator(t, [{ login: 'dana', password: 'pw', groups: ['g'], fullName: 'Dana' }]);
  const header = basicAuth('dana', 'pw');

  t.same(await authenticator.authenticate(header), { name: 'dana', groups: ['g'] });
  t.equal(lookups(), 1, 'the first request verifies against the stored user');
  for (let i = 0; i < 100; i++) {
    const principal = authenticator.authenticate(header);
    t.notOk(principal instanceof Promise, 'a cache hit answers synchronously');
  }
  t.equal(lookups(), 1, 'a hundred cached requests read no user (and so ran no scrypt)');
  await t.rejects(Promise.resolve().then(() => authenticator.authenticate(basicAuth('dana', 'wrong'))), { code: 'SVCDB_ERR_AUTH_CREDENTIALS_INVALID' });
  t.equal(lookups(), 2, 'a wrong password is verified, never answered from the cache');

  authenticator.invalidate();
  await authenticator.authenticate(header);
  t.equal(lookups(), 3, 'after an invalidation the user is read again');
});

t.test('concurrent requests with the same new credentials share one verification', async (t) => {
  const { authenticator, lookups } = await countingAuthenticator(t, [{ login: 'fay', password: 'pw' }]);
  const principals = await Promise.all(Array.from({ length: 20 }, () => authenticator.authenticate(basicAuth('fay', 'pw'))));
  t.equal(lookups(), 1, 'one verification for twenty requests');
  t.ok(principals.every((principal) => principal.name === 'fay'));
  const wrong = await Promise.allSettled(Array.from({ length: 5 }, () => authenticator.authenticate(basicAuth('fay', 'nope'))));
  t.ok(wrong.every((result) => result.status === 'rejected'), 'a shared failed verification fails every request');
  await t.rejects(Promise.resolve().then(() => authenticator.authenticate(basicAuth('fay', 'nope'))), { code: 'SVCDB_ERR_AUTH_CREDENTIALS_INVALID' },
    'and is not remembered: the next request is verified again');
  t.equal(lookups(), 3);
});

t.test('a verification that raced a change is not cached', async (t) => {
  const { authenticator, lookups } = await countingAuthenticator(t, [{ login: 'eve', password: 'pw' }]);
  const pending = authenticator.authenticate(basicAuth('eve', 'pw'));
  authenticator.invalidate();
  await pending;
  await authenticator.authenticate(basicAuth('eve', 'pw'));
  t.equal(lookups(), 2, 'the next request verified again');
});

t.test('an unknown user gets the same answer as a wrong password', async (t) => {
  const engine = await openEngine(tempDirectory(t));
  const authenticator = new Authenticator(new UserStore(engine));
  await t.rejects(Promise.resolve().then(() => authenticator.authenticate(basicAuth('ghost', 'pw'))),
    { code: 'SVCDB_ERR_AUTH_CREDENTIALS_INVALID', message: 'invalid credentials: the login name or password is wrong' });
});

t.test('a connection remembers the principal it proved only for the same header and until a change', async (t) => {
  const { store, authenticator, lookups } = await countingAuthenticator(t, [{ login: 'hal', password: 'pw', groups: ['g'] }, { login: 'ivy', password: 'pw2' }]);
  const connection = {};
  const hal = basicAuth('hal', 'pw');
  await authenticator.authenticate(hal, connection);
  t.same(authenticator.authenticate(hal, connection), { name: 'hal', groups: ['g'] }, 'answered synchronously');
  t.same(authenticator.authenticate(hal, connection), { name: 'hal', groups: ['g'] }, 'and again from what the connection remembers');
  t.equal(lookups(), 1);

  t.same(await authenticator.authenticate(basicAuth('ivy', 'pw2'), connection), { name: 'ivy', groups: [] },
    'another user on the same connection is that user');
  await t.rejects(Promise.resolve().then(() => authenticator.authenticate(basicAuth('hal', 'wrong'), connection)),
    { code: 'SVCDB_ERR_AUTH_CREDENTIALS_INVALID' }, 'a wrong password on a connection that proved the right one is refused');

  const password = await hashPassword('new');
  await store.update('hal', (user) => ({ ...user, password }), true);
  authenticator.invalidate();
  await t.rejects(Promise.resolve().then(() => authenticator.authenticate(hal, connection)),
    { code: 'SVCDB_ERR_AUTH_CREDENTIALS_INVALID' }, 'after a change the old password is refused on the same connection');
  t.same(await authenticator.authenticate(basicAuth('hal', 'new'), connection), { name: 'hal', groups: ['g'] });
});
