/**
 * The statistics a running projection reports, on a real node: the time its handlers took, the
 * writes under way split around the checkpoint being written, and the events read but not yet
 * handled. Writes are held back by a gate in front of the real engine (a disk slow to answer), so
 * the counts are looked at while they are not zero.
 */
import t from 'tap';
import { adminFetch } from '../helpers/auth.js';
import { newEvents } from '../helpers/engine.js';
import { createProjection, gatedStorage, projectionInfo, startProjectionsNode, waitCaughtUp } from '../helpers/projections.js';
import { pollUntilAsync } from '../helpers/wait.js';

const FIELDS = ['bufferedEvents', 'coreProcessingTime', 'readsInProgress', 'writesInProgress', 'writePendingEventsBeforeCheckpoint',
  'writePendingEventsAfterCheckpoint', 'checkpointStatus'] as const;

async function statistics(url: string, name: string): Promise<Record<string, unknown>> {
  const response = await adminFetch(`${url}/projection/${name}/statistics`);
  const body = await response.json() as { projections: Array<Record<string, unknown>> };
  return body.projections[0];
}

const pick = (item: Record<string, unknown>) => Object.fromEntries(FIELDS.map((key) => [key, item[key]]));

t.test('coreProcessingTime adds up the time the handlers took', async (t) => {
  const node = await startProjectionsNode(t, { projectionExecutionTimeout: 5000 });
  await node.engine.append('w-1', -2, newEvents(50));
  const busy = 'var x = 0; for (var i = 0; i < 200000; i++) { x += i % 7; } s.x = x; s.n++;';
  await createProjection(node.url, 'continuous', 'busy', `fromStream("w-1").when({$init: function(){ return {n:0}; }, $any: function(s){ ${busy} }})`);
  await waitCaughtUp(node, 'busy');
  const item = await statistics(node.url, 'busy');
  t.ok(Number(item.coreProcessingTime) >= 1, `the handlers' time is counted (${String(item.coreProcessingTime)} ms)`);
  t.same(pick(item), { ...pick(item), bufferedEvents: 0, readsInProgress: 0, writesInProgress: 0, writePendingEventsBeforeCheckpoint: 0,
    writePendingEventsAfterCheckpoint: 0, checkpointStatus: '' }, 'nothing is under way once caught up');
});

t.test('emitted events under way count before the checkpoint that waits for them, and after it once it is requested', async (t) => {
  let armed = false;
  // The checkpoint is held too: the writer commits in order, so it is never durable before the emits it follows.
  const { wrap, gate } = gatedStorage((streamName) => armed && (streamName === 'out-1' || streamName === '$projections-em-checkpoint'));
  t.teardown(gate.open); // before the node's own teardown, which waits for the held writes
  const node = await startProjectionsNode(t, {}, {}, wrap);
  await createProjection(node.url, 'continuous', 'em', 'fromStream("in-1").when({$any: function(s, e){ emit("out-1", "Copied", {n: e.sequenceNumber}); }})',
    { emit: 'true', enabled: 'false' });
  const configured = await adminFetch(`${node.url}/projection/em/config`, { method: 'PUT', body: JSON.stringify({ checkpointHandledThreshold: 2 }) });
  t.equal(configured.status, 200);
  t.equal((await adminFetch(`${node.url}/projection/em/command/enable`, { method: 'POST' })).status, 200);
  await pollUntilAsync('em to run', async () => (await projectionInfo(node.url, 'em')).status === 'Running', { intervalMs: 10 });
  armed = true;
  await node.engine.append('in-1', -2, newEvents(3));
  await gate.held;
  await pollUntilAsync('the checkpoint to be requested', async () => (await statistics(node.url, 'em')).checkpointStatus === 'Requested', { intervalMs: 10 });
  const requested = await statistics(node.url, 'em');
  t.equal(requested.writePendingEventsBeforeCheckpoint, 3, 'the checkpoint waits for the three emits');
  t.equal(requested.writePendingEventsAfterCheckpoint, 0);
  t.equal(requested.writesInProgress, 2, 'the emits and the checkpoint');

  await node.engine.append('in-1', -2, newEvents(1));
  await pollUntilAsync('the next emit to be under way', async () => (await statistics(node.url, 'em')).writePendingEventsAfterCheckpoint === 1, { intervalMs: 10 });
  t.equal((await statistics(node.url, 'em')).writePendingEventsBeforeCheckpoint, 3);
  gate.open();
  await waitCaughtUp(node, 'em');
  const done = await statistics(node.url, 'em');
  t.same([done.writesInProgress, done.writePendingEventsBeforeCheckpoint, done.writePendingEventsAfterCheckpoint, done.checkpointStatus], [0, 0, 0, '']);
});

t.test('events read while the writes of earlier pages hold the projection back are buffered and reads in progress', async (t) => {
  let armed = false;
  const { wrap, gate } = gatedStorage((streamName) => armed && streamName === 'out-2');
  t.teardown(gate.open); // before the node's own teardown, which waits for the held writes
  const node = await startProjectionsNode(t, {}, {}, wrap);
  await createProjection(node.url, 'continuous', 'held', 'fromStream("in-2").when({$any: function(s, e){ emit("out-2", "Copied", {}); }})', { emit: 'true' });
  await pollUntilAsync('held to run', async () => (await projectionInfo(node.url, 'held')).status === 'Running', { intervalMs: 10 });
  armed = true;
  // One event at a time, each its own page: once enough pages' writes are held, processing waits and the next page is buffered.
  let appended = 0;
  let item: Record<string, unknown> = {};
  for (; appended < 40; appended++) {
    await node.engine.append('in-2', -2, newEvents(1));
    await pollUntilAsync('the event to be handled or buffered', async () => {
      item = await statistics(node.url, 'held');
      return item.eventsProcessedAfterRestart === appended + 1 || Number(item.bufferedEvents) > 0;
    }, { intervalMs: 10 });
    if (Number(item.bufferedEvents) > 0) break;
  }
  t.ok(appended < 40, `processing waited for the held writes after ${appended} events`);
  t.equal(item.readsInProgress, 1, 'one page read ahead waits');
  t.equal(item.bufferedEvents, 1, 'its event is buffered');
  t.ok(Number(item.writesInProgress) > 1, `the held writes are in progress (${String(item.writesInProgress)})`);
  t.equal(item.writePendingEventsAfterCheckpoint, appended, 'one emitted event per handled event waits');
  gate.open();
  await waitCaughtUp(node, 'held');
  const done = await statistics(node.url, 'held');
  t.same([done.bufferedEvents, done.readsInProgress, done.writesInProgress, done.eventsProcessedAfterRestart], [0, 0, 0, appended + 1]);
});
