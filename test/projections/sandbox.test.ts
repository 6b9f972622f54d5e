/**
 * Hostile projection sources: each faults its own projection with a stateReason that says what
 * happened, while the node goes on serving and a well-behaved projection next to them keeps
 * counting.
 */
import t from 'tap';
import { adminFetch } from '../helpers/auth.js';
import { newEvents } from '../helpers/engine.js';
import { createProjection, projectionState, startProjectionsNode, waitCaughtUp, waitStatus } from '../helpers/projections.js';

const HOSTILE: Record<string, { source: string; reason: RegExp }> = {
  loop: { source: 'fromAll().when({$any: function(s, e){ while (true) {} }})', reason: /execution timeout of 1000 ms/ },
  allocation: {
    source: 'fromAll().when({$any: function(s, e){ var a = []; while (true) { a.push(new Array(1e6).fill(e.sequenceNumber)); } }})',
    reason: /memory limit of 16 MB/,
  },
  require: { source: 'fromAll().when({$any: function(s, e){ require("fs").writeFileSync("/tmp/x", "y"); }})', reason: /require is not defined/ },
  exit: { source: 'fromAll().when({$any: function(s, e){ process.exit(1); }})', reason: /process is not defined/ },
  timers: { source: 'fromAll().when({$any: function(s, e){ setTimeout(function(){}, 1); }})', reason: /setTimeout is not defined/ },
  network: { source: 'fromAll().when({$any: function(s, e){ fetch("http://127.0.0.1/"); }})', reason: /fetch is not defined/ },
  escape: {
    source: 'fromAll().when({$any: function(s, e){ var p = this.constructor.constructor("return process")(); p.exit(1); }})',
    reason: /process|undefined|Cannot read/,
  },
  throws: { source: 'fromAll().when({$any: function(s, e){ throw new Error("bad event " + e.sequenceNumber); }})', reason: /bad event 0/ },
};

t.test('hostile sources fault only their own projection', async (t) => {
  const node = await startProjectionsNode(t, { projectionExecutionTimeout: 1000, projectionMemoryLimitMb: 16 });
  await createProjection(node.url, 'continuous', 'honest', 'fromAll().when({$init: function(){ return {count:0}; }, $any: function(s){ s.count++; }})');
  for (const [name, { source }] of Object.entries(HOSTILE)) await createProjection(node.url, 'continuous', name, source);
  await node.engine.append('victim-1', -2, newEvents(3));
  for (const [name, { reason }] of Object.entries(HOSTILE)) {
    const info = await waitStatus(node.url, name, 'Faulted');
    t.match(String(info.stateReason), reason, `${name}: ${String(info.stateReason)}`);
  }
  await node.engine.append('victim-1', -2, newEvents(2));
  await waitCaughtUp(node, 'honest');
  t.same(await projectionState(node.url, 'honest'), { count: 5 }, 'the well-behaved projection went on');
  t.equal((await adminFetch(`${node.url}/streams/victim-1`, { headers: { accept: 'application/json' } })).status, 200, 'the node still serves');
});

t.test('prototype tampering stays inside the projection', async (t) => {
  const node = await startProjectionsNode(t);
  const tamper = `fromAll().when({$init: function(){ return {count:0}; }, $any: function(s){
    Object.prototype.toJSON = function(){ return "pwned"; };
    JSON.stringify = function(){ return "pwned"; };
    Array.prototype.push = function(){ throw new Error("no push"); };
    s.count++;
  }})`;
  await createProjection(node.url, 'continuous', 'tamper', tamper);
  await createProjection(node.url, 'continuous', 'honest', 'fromAll().when({$init: function(){ return {count:0}; }, $any: function(s){ s.count++; }})');
  await node.engine.append('victim-1', -2, newEvents(3));
  const info = await waitStatus(node.url, 'tamper', 'Faulted');
  t.match(String(info.stateReason), /unreadable reply|malformed|tampered/, 'the tampered runtime faults its projection with a reason');
  await waitCaughtUp(node, 'honest');
  t.same(await projectionState(node.url, 'honest'), { count: 3 }, 'the other projection counts as before');
  t.same(JSON.stringify({ a: [1] }), '{"a":[1]}', 'the node\'s JSON is untouched');
  t.same(Object.prototype.hasOwnProperty.call(Object.prototype, 'toJSON'), false, 'the node\'s Object.prototype is untouched');

  const atStart = await adminFetch(`${node.url}/projections/continuous?name=early&type=JS`, {
    method: 'POST', body: 'Object.prototype.toJSON = function(){ return 1; }; fromAll().when({})',
  });
  t.equal(atStart.status, 400, 'tampering before the definition is read is refused at creation');
  t.match(((await atStart.json()) as { message: string }).message, /could not be read/);
});

t.test('a source that does not compile is refused at creation with its reason', async (t) => {
  const node = await startProjectionsNode(t);
  const cases: Record<string, RegExp> = {
    'fromAll().when({': /SyntaxError|Unexpected/,
    'var x = 1;': /selects no events/,
    'while(true){}': /execution timeout/,
    'fromAll().foreachStream().partitionBy(function(e){ return "x"; }).when({})': /exclude each other/,
  };
  for (const [source, reason] of Object.entries(cases)) {
    const response = await adminFetch(`${node.url}/projections/continuous?name=bad&type=JS`, { method: 'POST', body: source });
    const body = await response.json() as { code: string; message: string };
    t.equal(response.status, 400, source);
    t.equal(body.code, 'SVCDB_ERR_PROJECTION_QUERY_INVALID');
    t.match(body.message, reason);
  }
  t.equal((await adminFetch(`${node.url}/projection/bad`)).status, 404, 'nothing was created');
});
