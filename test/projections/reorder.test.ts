/**
 * options({reorderEvents: true, processingLag: N}) on a real node: for fromStreams and
 * fromCategories, each event is held N ms after it is read, then handed to the handlers in log
 * order across the streams; held events are counted in bufferedEvents and a checkpoint never
 * moves past them. Anything else asking for reordering is refused with the reason.
 */
import t from 'tap';
import { adminFetch } from '../helpers/auth.js';
import { newEvents } from '../helpers/engine.js';
import { createProjection, projectionInfo, projectionState, readStream, startProjectionsNode, waitCaughtUp, waitStatus } from '../helpers/projections.js';
import { pollUntilAsync } from '../helpers/wait.js';

const ORDER = `.when({
  $init: function(){ return {order: []}; },
  $any: function(s, e){ s.order.push(e.streamId + '/' + e.sequenceNumber); }
})`;

/** Appends one event at a time to the streams in turn; returns the order they were written in. */
async function interleave(node: Awaited<ReturnType<typeof startProjectionsNode>>, streams: string[], rounds: number): Promise<string[]> {
  const written: string[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const stream of streams) {
      const result = await node.engine.append(stream, -2, newEvents(1));
      written.push(`${stream}/${result.firstEventNumber}`);
    }
  }
  return written;
}

t.test('fromStreams with reorderEvents hands the events over in log order across the streams', async (t) => {
  const node = await startProjectionsNode(t);
  await createProjection(node.url, 'continuous', 'ordered', `options({reorderEvents: true, processingLag: 100}); fromStreams(["x-1", "y-1", "z-1"])${ORDER}`);
  const written = await interleave(node, ['x-1', 'y-1', 'z-1'], 4);
  await waitCaughtUp(node, 'ordered');
  t.same((await projectionState(node.url, 'ordered') as { order: string[] }).order, written);
  const item = await projectionInfo(node.url, 'ordered');
  t.equal(item.bufferedEvents, 0, 'nothing held once every lag is over');
});

t.test('fromCategories with reorderEvents, through $by_category, in log order', async (t) => {
  const node = await startProjectionsNode(t, { startStandardProjections: true });
  await createProjection(node.url, 'continuous', 'cats', `options({reorderEvents: true, processingLag: 50}); fromCategories(["red", "blue"])${ORDER}`);
  const written = await interleave(node, ['red-1', 'blue-1', 'red-2'], 3);
  await waitCaughtUp(node, 'cats');
  t.same((await projectionState(node.url, 'cats') as { order: string[] }).order, written);
});

t.test('held events are buffered, not handled, and a disable\'s checkpoint does not pass them', async (t) => {
  const node = await startProjectionsNode(t);
  // A lag no test waits for: the events are held until the projection stops.
  await createProjection(node.url, 'continuous', 'slow', `options({reorderEvents: true, processingLag: 3600000}); fromStreams(["p-1", "q-1"])${ORDER}`);
  const written = await interleave(node, ['p-1', 'q-1'], 3);
  await pollUntilAsync('the six events to be held', async () => (await projectionInfo(node.url, 'slow')).bufferedEvents === 6, { intervalMs: 10 });
  const held = await projectionState(node.url, 'slow') as { order: string[] } | undefined;
  t.same(held?.order ?? [], [], 'no handler has seen a held event');
  t.equal((await projectionInfo(node.url, 'slow')).eventsProcessedAfterRestart, 0);
  t.equal((await adminFetch(`${node.url}/projection/slow/command/disable`, { method: 'POST' })).status, 200);
  t.equal((await projectionInfo(node.url, 'slow')).bufferedEvents, 0, 'a stopped projection holds nothing');
  // The same projection without reordering: it resumes from the checkpoint, which stayed before the held events.
  const changed = await adminFetch(`${node.url}/projection/slow/query`, { method: 'PUT', body: `fromStreams(["p-1", "q-1"])${ORDER}` });
  t.equal(changed.status, 200);
  t.equal((await adminFetch(`${node.url}/projection/slow/command/enable`, { method: 'POST' })).status, 200);
  await waitCaughtUp(node, 'slow');
  t.same((await projectionState(node.url, 'slow') as { order: string[] }).order, written, 'every held event is handled after the restart');
});

t.test('a one-time projection with reorderEvents hands over what it holds when it reaches its end, and completes', async (t) => {
  const node = await startProjectionsNode(t);
  const written = await interleave(node, ['m-1', 'n-1'], 3);
  await createProjection(node.url, 'onetime', 'once', `options({reorderEvents: true, processingLag: 3600000}); fromStreams(["m-1", "n-1"])${ORDER}`);
  await waitStatus(node.url, 'once', 'Completed');
  t.same((await projectionState(node.url, 'once') as { order: string[] }).order, written);
});

t.test('reordering is refused for one stream, fromAll, and a lag under 50 ms; processingLag must be a number', async (t) => {
  const node = await startProjectionsNode(t);
  const cases: Record<string, string> = {
    single: `options({reorderEvents: true}); fromStream("a-1")${ORDER}`,
    one: `options({reorderEvents: true}); fromStreams(["a-1"])${ORDER}`,
    all: `options({reorderEvents: true}); fromAll()${ORDER}`,
    lag: `options({reorderEvents: true, processingLag: 10}); fromStreams(["a-1", "b-1"])${ORDER}`,
    text: `options({processingLag: "soon"}); fromStreams(["a-1", "b-1"])${ORDER}`,
  };
  for (const [name, source] of Object.entries(cases)) {
    const response = await adminFetch(`${node.url}/projections/continuous?name=${name}`, { method: 'POST', body: source });
    t.equal(response.status, 400, name);
    const body = await response.json() as { code: string; message: string };
    t.equal(body.code, 'SVCDB_ERR_PROJECTION_QUERY_INVALID', name);
    t.match(body.message, name === 'text' ? /processingLag/ : /reorderEvents/, name);
    t.equal((await adminFetch(`${node.url}/projection/${name}`)).status, 404, `${name} was not created`);
  }
  const allowed = await adminFetch(`${node.url}/projections/continuous?name=ok`, { method: 'POST', body: `options({processingLag: 10}); fromStream("a-1")${ORDER}` });
  t.equal(allowed.status, 201, 'a lag without reordering changes nothing and is accepted');
});

t.test('with reorderEvents the order stream links each event handed over, in order, with its position; deleted with the checkpoint stream', async (t) => {
  const node = await startProjectionsNode(t);
  await createProjection(node.url, 'continuous', 'rec', `options({reorderEvents: true, processingLag: 50}); fromStreams(["o-1", "o-2"])${ORDER}`);
  await createProjection(node.url, 'continuous', 'plain', `fromStreams(["o-1", "o-2"])${ORDER}`);
  const written = await interleave(node, ['o-1', 'o-2'], 3);
  await waitCaughtUp(node, 'rec');
  await waitCaughtUp(node, 'plain');
  const order = await readStream(node.url, '$projections-rec-order');
  t.same(order.map((entry) => [entry.eventType, entry.data]), written.map((id) => ['$>', id.replace('/', '@').replace(/^(.*)@(\d+)$/, '$2@$1')]));
  const positions = order.map((entry) => (entry.metaData as { $c: number; $p: number }).$c);
  t.ok(positions.every((position, index) => index === 0 || position > positions[index - 1]), 'each link names its event\'s log position, increasing');
  const resolved = await readStream(node.url, '$projections-rec-order', true);
  t.same(resolved.map((entry) => `${String(entry.streamId)}/${String(entry.eventNumber)}`), written, 'the links resolve to the events');
  t.same(await readStream(node.url, '$projections-plain-order'), [], 'no order stream without reorderEvents');

  t.equal((await adminFetch(`${node.url}/projection/rec/command/disable`, { method: 'POST' })).status, 200);
  const deleted = await adminFetch(`${node.url}/projection/rec?deleteCheckpointStream=true`, { method: 'DELETE' });
  t.equal(deleted.status, 200);
  t.same(await readStream(node.url, '$projections-rec-order'), [], 'the order stream goes with the checkpoint stream');
});

t.test('no more than pendingEventsThreshold events are held: the oldest are handed over early, still in log order', async (t) => {
  const node = await startProjectionsNode(t);
  await createProjection(node.url, 'continuous', 'bounded', `options({reorderEvents: true, processingLag: 3600000}); fromStreams(["k-1", "l-1"])${ORDER}`,
    { enabled: 'false' });
  const configured = await adminFetch(`${node.url}/projection/bounded/config`, { method: 'PUT', body: JSON.stringify({ pendingEventsThreshold: 3 }) });
  t.equal(configured.status, 200);
  t.equal((await adminFetch(`${node.url}/projection/bounded/command/enable`, { method: 'POST' })).status, 200);
  const written = await interleave(node, ['k-1', 'l-1'], 4);
  await pollUntilAsync('five events to be handled', async () => (await projectionInfo(node.url, 'bounded')).eventsProcessedAfterRestart === 5, { intervalMs: 10 });
  t.equal((await projectionInfo(node.url, 'bounded')).bufferedEvents, 3, 'three held');
  t.same((await projectionState(node.url, 'bounded') as { order: string[] }).order, written.slice(0, 5), 'the five oldest, in log order');
});
