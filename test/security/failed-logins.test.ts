// Failed logins per client address (the unit, on a clock the test moves): the threshold within a
// window, a backoff that doubles up to its bound, a reset on success or when the window passes,
// other addresses untouched, and memory bounded however many addresses fail.
import t from 'tap';
import { FailedLogins, type FailedLoginLimits } from '../../src/daemon/security/failed-logins.js';

const limits: FailedLoginLimits = { failuresMax: 3, windowMs: 60_000, backoffMsFirst: 1_000, backoffMsMax: 8_000, sourcesMax: 100 };

function tracker(overrides: Partial<FailedLoginLimits> = {}) {
  const clock = { nowMs: 0 };
  const failures = new FailedLogins({ ...limits, ...overrides }, () => clock.nowMs);
  const fail = (source: string, times = 1) => {
    for (let i = 0; i < times; i++) failures.failed(source);
  };
  return { failures, clock, fail };
}

t.test('a source is refused once it reaches the threshold, and only that source', async (t) => {
  const { failures, fail } = tracker();
  fail('10.0.0.1', 2);
  t.equal(failures.retryAfterMs('10.0.0.1'), 0, 'below the threshold it may try again');
  fail('10.0.0.1');
  t.equal(failures.retryAfterMs('10.0.0.1'), 1_000, 'at the threshold: the first backoff');
  t.equal(failures.retryAfterMs('10.0.0.2'), 0, 'another address is not affected');
  t.same(failures.stats(), { sources: 1, blockedSources: 1, failures: 3 });
});

t.test('every failure after a backoff doubles the next one, up to its bound', async (t) => {
  const { failures, clock, fail } = tracker();
  fail('a', 3);
  const backoffs: number[] = [failures.retryAfterMs('a')];
  for (let i = 0; i < 5; i++) {
    clock.nowMs += backoffs.at(-1)!;
    t.equal(failures.retryAfterMs('a'), 0, `after backoff ${i + 1} the source may try once more`);
    fail('a');
    backoffs.push(failures.retryAfterMs('a'));
  }
  t.same(backoffs, [1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
  clock.nowMs += 500;
  t.equal(failures.retryAfterMs('a'), 7_500, 'the wait left shrinks as time passes');
});

t.test('a successful login resets its source', async (t) => {
  const { failures, clock, fail } = tracker();
  fail('a', 3);
  clock.nowMs += 1_000;
  failures.succeeded('a');
  t.equal(failures.retryAfterMs('a'), 0);
  fail('a', 2);
  t.equal(failures.retryAfterMs('a'), 0, 'counting starts again from nothing');
  fail('a');
  t.equal(failures.retryAfterMs('a'), 1_000, 'and the backoff from its first length');
});

t.test('failures spread wider than the window never add up; a quiet window after a backoff forgets it', async (t) => {
  const { failures, clock, fail } = tracker();
  fail('a', 2);
  clock.nowMs += limits.windowMs;
  fail('a');
  t.equal(failures.retryAfterMs('a'), 0, 'two old failures and a new one are not three in a window');
  fail('a', 2);
  t.equal(failures.retryAfterMs('a'), 1_000, 'three within the new window are');
  clock.nowMs += 1_000 + limits.windowMs;
  t.equal(failures.retryAfterMs('a'), 0);
  t.same(failures.stats(), { sources: 0, blockedSources: 0, failures: 5 }, 'the source is forgotten');
  fail('a');
  t.equal(failures.retryAfterMs('a'), 0, 'a failure after that counts from one');
});

t.test('memory is bounded: beyond sourcesMax the least recently failed sources are dropped', async (t) => {
  const { failures, fail } = tracker();
  for (let i = 0; i < 10_000; i++) fail(`10.1.${i >> 8}.${i & 255}`, 3);
  t.equal(failures.stats().sources, limits.sourcesMax, 'no more sources than the bound');
  t.equal(failures.retryAfterMs('10.1.39.15'), 1_000, 'the latest source is still refused');
  t.equal(failures.retryAfterMs('10.1.0.0'), 0, 'the earliest was dropped');
});

t.test('failuresMax 0 never refuses and remembers nothing', async (t) => {
  const { failures, fail } = tracker({ failuresMax: 0 });
  fail('a', 1_000);
  t.equal(failures.retryAfterMs('a'), 0);
  t.same(failures.stats(), { sources: 0, blockedSources: 0, failures: 0 });
});
