// scrypt on threads of its own: the same keys as node's scrypt, a bad job failing alone, close
// refusing what is left, and the point of it all: a storage fsync does not wait behind a burst of
// password hashes (with scrypt on libuv's pool, 32 queued hashes held it up behind 28 of them).
import { randomBytes, scryptSync } from 'node:crypto';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { ScryptWorkers, type ScryptJob } from '../../src/daemon/security/scrypt-workers.js';

const job = (password: string, N = 16_384): ScryptJob => ({
  password, salt: randomBytes(16), keyBytes: 32, options: { N, r: 8, p: 1, maxmem: 128 * N * 8 * 2 },
});

t.test('keys are those of node:crypto scrypt, for more jobs than threads', async (t) => {
  const workers = new ScryptWorkers(2);
  t.teardown(() => workers.close());
  const jobs = Array.from({ length: 5 }, (_, i) => job(`password-${i}`, 1024));
  const keys = await Promise.all(jobs.map((each) => workers.run(each)));
  jobs.forEach((each, i) => t.same(keys[i], scryptSync(each.password, each.salt, each.keyBytes, each.options), `job ${i}`));
});

t.test('a job scrypt refuses fails alone; the thread serves the next job', async (t) => {
  const workers = new ScryptWorkers(1);
  t.teardown(() => workers.close());
  await t.rejects(workers.run(job('x', 1000)), { code: 'ERR_CRYPTO_INVALID_SCRYPT_PARAMS' }, 'N must be a power of two');
  t.equal((await workers.run(job('x', 1024))).length, 32);
});

t.test('close refuses queued and new jobs with the coded shutdown error', async (t) => {
  const workers = new ScryptWorkers(1);
  const running = workers.run(job('a')).then(() => 'done', (error: { code?: string }) => error.code);
  const queued = workers.run(job('b')).then(() => 'done', (error: { code?: string }) => error.code);
  await workers.close();
  t.equal(await queued, 'SVCDB_ERR_NODE_SHUTTING_DOWN');
  t.match(await running, /^(done|SVCDB_ERR_NODE_SHUTTING_DOWN)$/, 'the running one finished or was refused, never left hanging');
  await t.rejects(workers.run(job('c')), { code: 'SVCDB_ERR_NODE_SHUTTING_DOWN' });
});

t.test('an fsync does not queue behind a burst of password hashes', async (t) => {
  const workers = new ScryptWorkers(2);
  t.teardown(() => workers.close());
  const file = await open(join(t.testdir(), 'log'), 'w');
  t.teardown(() => file.close());
  const hashes = 32;
  let hashed = 0;
  const burst = Array.from({ length: hashes }, (_, i) => workers.run(job(`guess-${i}`)).then(() => void hashed++));
  await file.write(Buffer.alloc(4096, 1));
  await file.datasync();
  const hashedBeforeSync = hashed;
  await Promise.all(burst);
  t.ok(hashedBeforeSync < hashes / 2, `the fsync finished with ${hashedBeforeSync} of ${hashes} hashes done`);
});
