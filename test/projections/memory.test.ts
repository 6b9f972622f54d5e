/**
 * A projection's memory is bounded, whatever it allocates (regression: WebAssembly.Memory was
 * reserved outside the isolate's heap limit, so one projection grew the node by gigabytes).
 */
import t from 'tap';
import { newEvents } from '../helpers/engine.js';
import { createProjection, projectionState, startProjectionsNode, waitCaughtUp, waitStatus } from '../helpers/projections.js';

const MB = 1024 * 1024;
/** What 40 allocations of 100 MB would grow the node by if they were not refused. */
const RSS_GROWTH_MAX_BYTES = 1024 * MB;

const WASM_LOOP = `fromStream("mem-1").when({$any: function (s, e) {
  var keep = [];
  for (var i = 0; i < 40; i++) { var m = new WebAssembly.Memory({ initial: 1600 }); new Uint8Array(m.buffer).fill(1); keep.push(m); }
  return { kept: keep.length };
}})`;

const ARRAY_BUFFER_LOOP = `fromStream("mem-1").when({$any: function (s, e) {
  var keep = [];
  for (var i = 0; i < 40; i++) { var b = new ArrayBuffer(100 * 1024 * 1024); new Uint8Array(b).fill(1); keep.push(b); }
  return { kept: keep.length };
}})`;

t.test('WebAssembly is not available to projections; an allocation loop faults that projection alone and the node stays small', async (t) => {
  const node = await startProjectionsNode(t, { projectionMemoryLimitMb: 32, projectionExecutionTimeout: 30_000 });
  await node.engine.append('mem-1', -2, newEvents(1));
  const rssBefore = process.memoryUsage().rss;
  await createProjection(node.url, 'continuous', 'counter', 'fromStream("mem-1").when({$init: function(){ return {n: 0}; }, $any: function(s){ s.n++; return s; }})');
  await createProjection(node.url, 'continuous', 'wasm', WASM_LOOP);
  await createProjection(node.url, 'continuous', 'buffers', ARRAY_BUFFER_LOOP);
  t.match((await waitStatus(node.url, 'wasm', 'Faulted')).stateReason, /WebAssembly is not defined/);
  t.match((await waitStatus(node.url, 'buffers', 'Faulted')).stateReason, /more than its memory limit of 32 MB/, 'ArrayBuffer memory counts toward the limit');
  const growth = process.memoryUsage().rss - rssBefore;
  t.ok(growth < RSS_GROWTH_MAX_BYTES, `the node grew by ${Math.round(growth / MB)} MB, under ${RSS_GROWTH_MAX_BYTES / MB} MB`);
  await node.engine.append('mem-1', -2, newEvents(1));
  await waitCaughtUp(node, 'counter');
  t.same(await projectionState(node.url, 'counter'), { n: 2 }, 'the other projection goes on');
});
