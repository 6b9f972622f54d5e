// The bound on verifications of new credentials: never more running than its bound, never more
// waiting than the queue's, the rest refused at once; a slot passes from a finished task (even a
// failed one) to the first waiter.
import t from 'tap';
import { BoundedConcurrency } from '../../src/daemon/security/bounded-concurrency.js';

/** A task that runs until the test releases it, recording how many ran at once. */
function controlledTasks() {
  const state = { running: 0, runningPeak: 0, started: [] as number[] };
  const releases = new Map<number, (fail: boolean) => void>();
  const task = (id: number) => () => new Promise<number>((resolve, reject) => {
    state.running++;
    state.runningPeak = Math.max(state.runningPeak, state.running);
    state.started.push(id);
    releases.set(id, (fail) => {
      state.running--;
      if (fail) reject(new Error(`task ${id} failed`));
      else resolve(id);
    });
  });
  const release = async (id: number, fail = false) => {
    releases.get(id)!(fail);
    // Let the hand-over to the next waiter run.
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { state, task, release };
}

t.test('two run, three wait, the sixth is refused; finishing ones let the waiters in, in order', async (t) => {
  const limit = new BoundedConcurrency(2, 3);
  const { state, task, release } = controlledTasks();
  const results = [1, 2, 3, 4, 5].map((id) => limit.tryRun(task(id)));
  t.ok(results.every((result) => result instanceof Promise), 'five are taken');
  const failure = results[1]!.then(() => undefined, (error: Error) => error.message);
  t.equal(limit.tryRun(task(6)), undefined, 'the sixth is refused without running');
  await new Promise((resolve) => setImmediate(resolve));
  t.same(state.started, [1, 2]);
  t.match(limit.stats(), { running: 2, runningMax: 2, waiting: 3, waitingMax: 3, waitingPeak: 3, refused: 1 });

  await release(1);
  await release(2, true);
  t.same(state.started, [1, 2, 3, 4], 'a failed task hands its slot on too');
  t.equal(await results[0], 1);
  t.equal(await failure, 'task 2 failed', 'and its caller gets its error');
  t.ok(limit.tryRun(task(7)) instanceof Promise, 'with room in the queue a new task is taken again');
  for (const id of [3, 4, 5, 7]) await release(id);
  t.same(state.started, [1, 2, 3, 4, 5, 7]);
  t.equal(state.runningPeak, 2, 'never more than two at once');
  t.match(limit.stats(), { running: 0, waiting: 0, waitingPeak: 3, refused: 1 });
});

t.test('a queue of 0 runs up to the bound and refuses the rest', async (t) => {
  const limit = new BoundedConcurrency(1, 0);
  const { task, release } = controlledTasks();
  const first = limit.tryRun(task(1));
  t.equal(limit.tryRun(task(2)), undefined);
  await new Promise((resolve) => setImmediate(resolve));
  await release(1);
  t.equal(await first, 1);
  t.ok(limit.tryRun(task(3)) instanceof Promise, 'the slot is free again');
  await new Promise((resolve) => setImmediate(resolve));
  await release(3);
});
