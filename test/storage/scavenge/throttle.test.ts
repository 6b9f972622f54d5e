import t from 'tap';
import { REST_MS_MIN, Throttle } from '../../../src/storage/scavenge/throttle.js';
import { withDeadline } from '../../helpers/wait.js';

/**
 * Proves the throttle's arithmetic: at 50% it rests as long as the run worked once the owed rest
 * reaches its minimum, at 100% it never rests, and a stop cuts a rest short.
 */
function work(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Busy: the throttle counts the time between its calls as active.
  }
}

t.test('at 50% a run rests as long as it worked', async (t) => {
  const throttle = new Throttle(50, new AbortController().signal);
  work(REST_MS_MIN / 2);
  await throttle.rest();
  t.equal(throttle.restedMs, 0, 'less rest owed than the minimum: no rest yet');
  work(REST_MS_MIN / 2 + 50);
  await throttle.rest();
  t.ok(throttle.restedMs >= REST_MS_MIN, `rested ${Math.round(throttle.restedMs)} ms after working more than ${REST_MS_MIN} ms`);
});

t.test('at 100% a run never rests', async (t) => {
  const throttle = new Throttle(100, new AbortController().signal);
  work(REST_MS_MIN + 50);
  await throttle.rest();
  t.equal(throttle.restedMs, 0, 'no rest');
});

t.test('a stop cuts a rest short', async (t) => {
  const controller = new AbortController();
  const throttle = new Throttle(1, controller.signal);
  work(50);
  // 1% owes 99 times the work: about 5 s of rest.
  const resting = throttle.rest();
  setImmediate(() => controller.abort());
  await t.resolves(withDeadline(resting, 'the rest ends once the run is stopped', 3000), 'the rest ends well before the 5 s owed');
});
