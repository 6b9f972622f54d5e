// Passwords and the credential cache: scrypt hashes that verify only their own password, one
// scrypt per login until a change drops the cache, and no cached entry from a verification that
// raced a change.
import t, { type Test } from 'tap';
import { Authenticator, parseBasic } from '../../src/daemon/security/authenticator.js';
import { BoundedConcurrency } from '../../src/daemon/security/bounded-concurrency.js';
import { DEFAULT_FAILED_LOGIN_LIMITS, FailedLogins } from '../../src/daemon/security/failed-logins.js';
import { PasswordHasher } from '../../src/daemon/security/password-hash.js';
import { ScryptWorkers } from '../../src/daemon/security/scrypt-workers.js';
import { UserStore } from '../../src/daemon/security/user-store.js';
import { basicAuth } from '../helpers/auth.js';
import { openEngine, tempDirectory } from '../helpers/engine.js';

/** The node's hasher: scrypt on worker threads, ended at teardown. */
function testHasher(t: Test): PasswordHasher {
  const workers = new ScryptWorkers(2);
  t.teardown(() => workers.close());
  return new PasswordHasher((job) => workers.run(job));
}

/** An authenticator with the node's default bounds. */
function newAuthenticator(t: Test, users: ConstructorParameters<typeof Authenticator>[0], hasher = testHasher(t)): Authenticator {
  return new Authenticator(users, hasher, {
    verifications: new BoundedConcurrency(2, 100),
    failedLogins: new FailedLogins({ ...DEFAULT_FAILED_LOGIN_LIMITS, failuresMax: 30 }),
  });
}

/** A real user store with `users` in it, and an authenticator over it that counts its user lookups. */
async function countingAuthenticator(t: Test, users: Array<{ login: string; password: string; groups?: string[]; fullName?: string }>) {
  const engine = await openEngine(tempDirectory(t));
  const store = new UserStore(engine);
  const hasher = testHasher(t);
  for (const { login, password, groups = [], fullName = '' } of users) {
    await store.create({ loginName: login, fullName, groups, disabled: false, password: await hasher.hash(password) });
  }
  const counter = { lookups: 0 };
  const authenticator = newAuthenticator(t, { find: (login) => (counter.lookups++, store.find(login)) }, hasher);
  return { store, hasher, authenticator, lookups: () => counter.lookups };
}

t.test('scrypt hashes: salted, and verifying only the password they were made from', async (t) => {
  const hasher = testHasher(t);
  const verifyPassword = (password: string, stored: Parameters<PasswordHasher['verify']>[1]) => hasher.verify(password, stored);
  const first = await hasher.hash('pässwörd');
  const second = await hasher.hash('pässwörd');
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
  const principals = await Promise.all(Array.from({ length: 20 }, async () => authenticator.authenticate(basicAuth('fay', 'pw'))));
  t.equal(lookups(), 1, 'one verification for twenty requests');
  t.ok(principals.every((principal) => principal.name === 'fay'));
  const wrong = await Promise.allSettled(Array.from({ length: 5 }, async () => authenticator.authenticate(basicAuth('fay', 'nope'))));
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
  const authenticator = newAuthenticator(t, new UserStore(engine));
  await t.rejects(Promise.resolve().then(() => authenticator.authenticate(basicAuth('ghost', 'pw'))),
    { code: 'SVCDB_ERR_AUTH_CREDENTIALS_INVALID', message: 'invalid credentials: the login name or password is wrong' });
});

t.test('a connection remembers the principal it proved only for the same header and until a change', async (t) => {
  const { store, hasher, authenticator, lookups } = await countingAuthenticator(t, [{ login: 'hal', password: 'pw', groups: ['g'] }, { login: 'ivy', password: 'pw2' }]);
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

  const password = await hasher.hash('new');
  await store.update('hal', (user) => ({ ...user, password }), true);
  authenticator.invalidate();
  await t.rejects(Promise.resolve().then(() => authenticator.authenticate(hal, connection)),
    { code: 'SVCDB_ERR_AUTH_CREDENTIALS_INVALID' }, 'after a change the old password is refused on the same connection');
  t.same(await authenticator.authenticate(basicAuth('hal', 'new'), connection), { name: 'hal', groups: ['g'] });
});

/** A hasher whose scrypt does not finish until the test lets it: the fault of a hash that takes forever. */
function stalledHasher(t: Test) {
  const real = testHasher(t);
  const stalled: Array<() => void> = [];
  let stalling = false;
  const workers = new ScryptWorkers(1);
  t.teardown(() => workers.close());
  const hasher = new PasswordHasher(async (job) => {
    if (stalling) await new Promise<void>((resolve) => stalled.push(resolve));
    return workers.run(job);
  });
  return { real, hasher, stall: () => void (stalling = true), release: () => { stalling = false; stalled.splice(0).forEach((resume) => resume()); }, stalled: () => stalled.length };
}

t.test('with the verification queue full, new credentials are refused at once and cached ones still answer', async (t) => {
  const engine = await openEngine(tempDirectory(t));
  const store = new UserStore(engine);
  const { real, hasher, stall, release, stalled } = stalledHasher(t);
  await store.create({ loginName: 'jo', fullName: '', groups: [], disabled: false, password: await real.hash('pw') });
  const verifications = new BoundedConcurrency(1, 2);
  const authenticator = new Authenticator(store, hasher, { verifications, failedLogins: new FailedLogins({ ...DEFAULT_FAILED_LOGIN_LIMITS, failuresMax: 30 }) });
  const jo = basicAuth('jo', 'pw');
  await authenticator.authenticate(jo);

  stall();
  const pending = [1, 2, 3].map((i) => Promise.resolve(authenticator.authenticate(basicAuth('jo', `guess-${i}`))).catch((error: { code: string }) => error.code));
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(stalled(), 1, 'one verification runs (and hangs)');
  t.match(verifications.stats(), { running: 1, waiting: 2 }, 'two wait');
  t.throws(() => authenticator.authenticate(basicAuth('jo', 'guess-4')), { code: 'SVCDB_ERR_AUTH_VERIFICATIONS_BUSY', statusCode: 503, details: { retryAfterSeconds: 1 } },
    'a fourth is refused at once, coded, with the time to wait');
  t.same(authenticator.authenticate(jo), { name: 'jo', groups: [] }, 'cached credentials answer at once, past the full queue');
  release();
  t.same(await Promise.all(pending), Array(3).fill('SVCDB_ERR_AUTH_CREDENTIALS_INVALID'), 'the queued ones are verified in the end');
  t.match(authenticator.stats().verifications, { running: 0, waiting: 0, waitingPeak: 2, refused: 1 });
});

t.test('a source past its failures is refused before any hash, cached credentials too, except on a connection that proved them', async (t) => {
  const engine = await openEngine(tempDirectory(t));
  const store = new UserStore(engine);
  const hasher = testHasher(t);
  await store.create({ loginName: 'kim', fullName: '', groups: [], disabled: false, password: await hasher.hash('pw') });
  const counter = { lookups: 0 };
  const authenticator = new Authenticator({ find: (login) => (counter.lookups++, store.find(login)) }, hasher, {
    verifications: new BoundedConcurrency(2, 100),
    failedLogins: new FailedLogins({ ...DEFAULT_FAILED_LOGIN_LIMITS, failuresMax: 2 }),
  });
  const kim = basicAuth('kim', 'pw');
  const proven = {};
  await authenticator.authenticate(kim, proven, '10.0.0.1');
  // The connection remembers the header from its next request on, answered from the cache.
  void authenticator.authenticate(kim, proven, '10.0.0.1');
  for (const guess of ['a', 'b']) {
    await t.rejects(Promise.resolve().then(() => authenticator.authenticate(basicAuth('kim', guess), {}, '10.0.0.1')), { code: 'SVCDB_ERR_AUTH_CREDENTIALS_INVALID' });
  }
  const lookups = counter.lookups;
  t.throws(() => authenticator.authenticate(basicAuth('kim', 'c'), {}, '10.0.0.1'),
    { code: 'SVCDB_ERR_AUTH_FAILURES_THROTTLED', statusCode: 429, details: { source: '10.0.0.1', retryAfterSeconds: 5 } });
  t.throws(() => authenticator.authenticate(kim, {}, '10.0.0.1'), { code: 'SVCDB_ERR_AUTH_FAILURES_THROTTLED' },
    'the right credentials, cached, are refused too: the cache is no oracle for a throttled source');
  t.equal(counter.lookups, lookups, 'nothing was verified for the refused requests');
  t.same(authenticator.authenticate(kim, proven, '10.0.0.1'), { name: 'kim', groups: [] }, 'a connection that proved these credentials goes on');
  t.same(authenticator.authenticate(kim, {}, '10.0.0.2'), { name: 'kim', groups: [] }, 'another address is not affected');
  t.match(authenticator.stats(), { throttled: 2, failedLogins: { failures: 2, blockedSources: 1 } });
});
