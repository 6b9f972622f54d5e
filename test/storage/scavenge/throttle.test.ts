import t from 'tap';
import { GIVE_WAY_MS_MAX } from '../../../src/storage/log/give-way.js';
import { REST_MS_MIN, Throttle, type ThrottleClock } from '../../../src/storage/maintenance/scavenge/throttle.js';
import { withDeadline } from '../../helpers/wait.js';

/**
 * Proves the throttle's arithmetic: at 50% it rests as long as the run worked once the owed rest
 * reaches its minimum, at 100% it never rests, and a stop cuts a rest short.
 */
class FakeClock implements ThrottleClock {
  time = 0;
  now(): number {
    return this.time;
  }
  /** A rest passes at once in the clock's time; a stopped one ends when the stop comes. */
  sleep(ms: number, signal: AbortSignal): Promise<unknown> {
    if (this.stopsOnly) return new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    this.time += ms;
    return Promise.resolve();
  }
  constructor(private readonly stopsOnly = false) {}
}

const clock = new FakeClock();
/** The throttle counts the time between its calls as active. */
function work(ms: number, on: FakeClock = clock): void {
  on.time += ms;
}

t.test('at 50% a run rests as long as it worked', async (t) => {
  const throttle = new Throttle(50, new AbortController().signal, undefined, clock);
  work(REST_MS_MIN / 2);
  await throttle.rest();
  t.equal(throttle.restedMs, 0, 'less rest owed than the minimum: no rest yet');
  work(REST_MS_MIN / 2 + 50);
  await throttle.rest();
  t.ok(throttle.restedMs >= REST_MS_MIN, `rested ${Math.round(throttle.restedMs)} ms after working more than ${REST_MS_MIN} ms`);
});

t.test('at the end of a run the rest still owed is taken, however short', async (t) => {
  const throttle = new Throttle(50, new AbortController().signal, undefined, clock);
  work(REST_MS_MIN / 4);
  await throttle.rest();
  t.equal(throttle.restedMs, 0, 'less rest owed than the minimum: no rest between steps');
  work(REST_MS_MIN / 4);
  await throttle.settle();
  t.equal(throttle.restedMs, REST_MS_MIN / 2, 'the whole work time rested at the end: a run at 50% takes twice its work');
  await throttle.settle();
  t.equal(throttle.restedMs, REST_MS_MIN / 2, 'nothing more owed, nothing more rested');
  const full = new Throttle(100, new AbortController().signal, undefined, clock);
  work(REST_MS_MIN / 4);
  await full.settle();
  t.equal(full.restedMs, 0, 'at 100% nothing is owed');
});

t.test('at 100% a run never rests, but the event loop turns between its steps', async (t) => {
  const throttle = new Throttle(100, new AbortController().signal, undefined, clock);
  work(REST_MS_MIN + 50);
  let turned = false;
  setImmediate(() => (turned = true));
  await throttle.rest();
  t.equal(throttle.restedMs, 0, 'no rest');
  t.ok(turned, 'what waited for the event loop ran before the next step');
});

t.test('a throttled run writes its chunks in small flushed steps; a run at 100% writes them whole', async (t) => {
  const signal = new AbortController().signal;
  for (const percent of [1, 50, 99]) {
    const { flushStepBytes: step, betweenBlocks } = new Throttle(percent, signal, undefined, clock).rewriteOptions;
    t.ok(step !== undefined && step > 0 && step <= 1024 * 1024, `at ${percent}%: steps of ${step} bytes`);
    t.type(betweenBlocks, 'function', `at ${percent}%: gives way between blocks`);
  }
  t.same(new Throttle(100, signal, undefined, clock).rewriteOptions, {}, 'at 100%: whole blocks, one sync, no giving way');
});

/** A group commit that the test ends when it wants. */
function commitWithClientsWaiting(): { writes: { commitWithClientsWaiting: () => Promise<void> | undefined }; end: () => void } {
  let end: () => void = () => undefined;
  let commit: Promise<void> | undefined = new Promise<void>((resolve) => (end = resolve));
  return { writes: { commitWithClientsWaiting: () => commit }, end: () => ((commit = undefined), end()) };
}

t.test('below 100% a step waits for the group commit under way, and the wait is neither work nor rest', async (t) => {
  const own = new FakeClock();
  const { writes, end } = commitWithClientsWaiting();
  const throttle = new Throttle(50, new AbortController().signal, writes, own);
  work(REST_MS_MIN / 2, own);
  let gaveWay = false;
  const giving = throttle.giveWay().then(() => (gaveWay = true));
  await new Promise((resolve) => setImmediate(resolve));
  t.notOk(gaveWay, 'the step waits while the commit is under way');
  own.time += 5;
  end();
  await giving;
  t.equal(throttle.gaveWayMs, 5, 'the wait is counted apart');
  work(REST_MS_MIN / 2, own);
  await throttle.settle();
  t.equal(throttle.restedMs, REST_MS_MIN, 'the rest owed covers the work only, not the wait');
  t.equal(writes.commitWithClientsWaiting(), undefined, 'no commit under way any more');
  await throttle.giveWay();
  t.equal(throttle.gaveWayMs, 5, 'with none under way a step goes ahead at once');
});

t.test('a step gives way only for a while, and never at 100%', async (t) => {
  const stuck = { commitWithClientsWaiting: () => new Promise<void>(() => undefined) };
  const throttled = new Throttle(50, new AbortController().signal, stuck);
  await t.resolves(withDeadline(throttled.giveWay(), `a commit that never ends holds a step up to ${GIVE_WAY_MS_MAX} ms`, 3000));
  const full = new Throttle(100, new AbortController().signal, stuck, clock);
  const before = clock.time;
  await full.giveWay();
  t.equal(full.gaveWayMs, 0, 'at 100% a step never waits for a commit');
  t.equal(clock.time, before);
});

t.test('a stop cuts a rest short', async (t) => {
  const controller = new AbortController();
  const stopped = new FakeClock(true);
  const throttle = new Throttle(1, controller.signal, undefined, stopped);
  work(50, stopped);
  // 1% owes 99 times the work: about 5 s of rest.
  const resting = throttle.rest();
  setImmediate(() => controller.abort());
  await t.resolves(withDeadline(resting, 'the rest ends once the run is stopped', 3000), 'the rest ends well before the 5 s owed');
});
