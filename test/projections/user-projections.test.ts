/**
 * User projections through the HTTP API on a real node: every selector, every handler kind,
 * partitions, biState, result streams, and emitting with and without `emit`.
 */
import t from 'tap';
import { newEvent, newEvents } from '../helpers/engine.js';
import { createProjection, projectionState, readStream, startProjectionsNode, waitCaughtUp, waitStatus } from '../helpers/projections.js';

const COUNT = 'function(){return {count:0}}';

t.test('fromAll counts events of user streams, not system streams', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('order-1', -2, newEvents(5));
  await node.engine.append('$system-x', -2, newEvents(2));
  await createProjection(node.url, 'continuous', 'count', `fromAll().when({$init: ${COUNT}, $any: function(s, e){ s.count++; }})`);
  await node.engine.append('order-2', -2, newEvents(3));
  await waitCaughtUp(node, 'count');
  t.same(await projectionState(node.url, 'count'), { count: 8 });
});

t.test('fromStream, fromStreams, fromCategory and fromCategories select their events', async (t) => {
  const node = await startProjectionsNode(t, { startStandardProjections: true }); // categories are read through $by_category's $ce- streams
  await node.engine.append('order-1', -2, newEvents(2));
  await node.engine.append('order-2', -2, newEvents(3));
  await node.engine.append('user-1', -2, newEvents(4));
  await node.engine.append('invoice-1', -2, newEvents(5));
  const sources: Record<string, string> = {
    stream: 'fromStream("order-2")', streams: 'fromStreams(["order-1", "user-1"])', varargs: 'fromStreams("order-1", "invoice-1")',
    category: 'fromCategory("order")', categories: 'fromCategories(["order", "invoice"])',
  };
  for (const [name, selector] of Object.entries(sources)) {
    await createProjection(node.url, 'continuous', name, `${selector}.when({$init: ${COUNT}, $any: function(s, e){ s.count++; }})`);
  }
  for (const name of Object.keys(sources)) await waitCaughtUp(node, name);
  const counts: Record<string, unknown> = {};
  for (const name of Object.keys(sources)) counts[name] = await projectionState(node.url, name);
  t.same(counts, { stream: { count: 3 }, streams: { count: 6 }, varargs: { count: 7 }, category: { count: 5 }, categories: { count: 10 } });
});

t.test('handlers by event type win over $any; the event object has the fields of the API', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('shop-1', -2, [newEvent('Added', { amount: 5 }), newEvent('Removed', { amount: 2 }), newEvent('Other', {})]);
  await node.engine.append('shop-1', -2, [{ eventId: '0b8c6f4e-9f0a-4d2e-8a53-1a2b3c4d5e6f', eventType: 'Added', data: Buffer.from('{"amount":10}'), metadata: Buffer.from('{"who":"me"}'), isJson: true }]);
  const source = `fromStream("shop-1").when({
    $init: function(){ return {total:0, others:0, last:null}; },
    Added: function(s, e){ s.total += e.body.amount; s.last = {streamId: e.streamId, sequenceNumber: e.sequenceNumber, eventType: e.eventType,
      eventId: e.eventId, isJson: e.isJson, bodyRaw: e.bodyRaw, data: e.data, metadata: e.metadata, metadataRaw: e.metadataRaw, partition: e.partition}; },
    Removed: function(s, e){ return {total: s.total - e.data.amount, others: s.others, last: s.last}; },
    $any: function(s, e){ s.others++; }
  })`;
  await createProjection(node.url, 'continuous', 'totals', source);
  await waitCaughtUp(node, 'totals');
  t.same(await projectionState(node.url, 'totals'), {
    total: 13, others: 1,
    last: { streamId: 'shop-1', sequenceNumber: 3, eventType: 'Added', eventId: '0b8c6f4e-9f0a-4d2e-8a53-1a2b3c4d5e6f', isJson: true,
      bodyRaw: '{"amount":10}', data: { amount: 10 }, metadata: { who: 'me' }, metadataRaw: '{"who":"me"}', partition: '' },
  });
});

t.test('foreachStream keeps a state per stream, with $created and $deleted', async (t) => {
  const node = await startProjectionsNode(t, { startStandardProjections: true }); // categories are read through $by_category's $ce- streams
  await node.engine.append('cart-1', -2, newEvents(2));
  await node.engine.append('cart-2', -2, newEvents(3));
  const source = `fromCategory("cart").foreachStream().when({
    $init: function(){ return {count:0, created:false, deleted:false}; },
    $created: function(s, e){ s.created = true; },
    $any: function(s, e){ s.count++; },
    $deleted: function(s, e){ s.deleted = true; }
  })`;
  await createProjection(node.url, 'continuous', 'carts', source);
  await waitCaughtUp(node, 'carts');
  // Deleted once its events are processed: the links of $ce-cart to a hard-deleted stream's events no longer resolve.
  await node.engine.deleteStream('cart-1', -2, true);
  await waitCaughtUp(node, 'carts');
  t.same(await projectionState(node.url, 'carts', 'cart-1'), { count: 2, created: true, deleted: true });
  t.same(await projectionState(node.url, 'carts', 'cart-2'), { count: 3, created: true, deleted: false });
  const partitions = await readStream(node.url, '$projections-carts-partitions');
  t.same(partitions.map((entry) => entry.data).sort(), ['cart-1', 'cart-2'], 'each new partition is recorded');
});

t.test('partitionBy, outputState and result streams per partition', async (t) => {
  const node = await startProjectionsNode(t, { startStandardProjections: true }); // categories are read through $by_category's $ce- streams
  await node.engine.append('pay-1', -2, [newEvent('Paid', { country: 'fr', amount: 3 }), newEvent('Paid', { country: 'de', amount: 4 })]);
  await node.engine.append('pay-2', -2, [newEvent('Paid', { country: 'fr', amount: 5 })]);
  const source = `fromCategory("pay").partitionBy(function(e){ return e.body.country; }).when({
    $init: function(){ return {sum:0}; }, Paid: function(s, e){ s.sum += e.body.amount; }
  }).outputState()`;
  await createProjection(node.url, 'continuous', 'bycountry', source);
  await waitCaughtUp(node, 'bycountry');
  t.same(await projectionState(node.url, 'bycountry', 'fr'), { sum: 8 });
  t.same(await projectionState(node.url, 'bycountry', 'de', 'result'), { sum: 4 });
  const results = await readStream(node.url, '$projections-bycountry-fr-result');
  t.same(results.at(-1)?.data, { sum: 8 }, 'the partition result stream holds the latest result');
  t.equal(results.at(-1)?.eventType, 'Result');
});

t.test('transformBy, filterBy and resultStreamName shape the result', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('num-1', -2, newEvents(4));
  const source = `options({resultStreamName: "counted"});
    fromStream("num-1").when({$init: ${COUNT}, $any: function(s){ s.count++; }})
    .transformBy(function(s){ return {doubled: s.count * 2}; }).filterBy(function(s){ return s.doubled > 2; })`;
  await createProjection(node.url, 'continuous', 'shaped', source);
  await waitCaughtUp(node, 'shaped');
  t.same(await projectionState(node.url, 'shaped'), { count: 4 });
  t.same(await projectionState(node.url, 'shaped', undefined, 'result'), { doubled: 8 });
  const results = await readStream(node.url, 'counted');
  t.ok(results.length >= 1, 'results go to the stream named by resultStreamName');
  t.same(results.at(-1)?.data, { doubled: 8 });
});

t.test('outputTo names the result stream', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('num-1', -2, newEvents(2));
  await createProjection(node.url, 'continuous', 'out', `fromStream("num-1").when({$init: ${COUNT}, $any: function(s){ s.count++; }}).outputTo("out-result")`);
  await waitCaughtUp(node, 'out');
  t.same((await readStream(node.url, 'out-result')).at(-1)?.data, { count: 2 });
});

t.test('biState handlers see [state, shared]', async (t) => {
  const node = await startProjectionsNode(t, { startStandardProjections: true }); // categories are read through $by_category's $ce- streams
  await node.engine.append('acc-1', -2, newEvents(2));
  await node.engine.append('acc-2', -2, newEvents(3));
  const source = `options({biState: true});
    fromCategory("acc").foreachStream().when({
      $init: function(){ return {count:0}; }, $initShared: function(){ return {total:0}; },
      $any: function(s, e){ s[0].count++; s[1].total++; s[0].shared = s[1].total; return s; }
    })`;
  await createProjection(node.url, 'continuous', 'bistate', source);
  await waitCaughtUp(node, 'bistate');
  t.same(await projectionState(node.url, 'bistate', 'acc-1'), { count: 2, shared: 2 });
  t.same(await projectionState(node.url, 'bistate', 'acc-2'), { count: 3, shared: 5 }, 'the shared state counts across partitions');
});

t.test('emit, linkTo, copyTo and linkStreamTo write with emit enabled', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('src-1', -2, [newEvent('Happened', { n: 1 }), newEvent('Happened', { n: 2 })]);
  const source = `fromStream("src-1").when({
    Happened: function(s, e){
      emit("emitted-1", "Derived", {n: e.body.n * 10}, {from: e.eventId});
      linkTo("linked-1", e);
      copyTo("copied-1", e);
      if (e.sequenceNumber === 0) linkStreamTo("streams-1", e.streamId);
    }
  })`;
  await createProjection(node.url, 'continuous', 'emitter', source, { emit: 'true' });
  await waitCaughtUp(node, 'emitter');
  const emitted = await readStream(node.url, 'emitted-1');
  t.same(emitted.map((entry) => entry.data), [{ n: 10 }, { n: 20 }]);
  t.match(emitted[0].metaData, { from: String }, 'the code\'s metadata is kept');
  const linked = await readStream(node.url, 'linked-1');
  t.same(linked.map((entry) => [entry.eventType, entry.data]), [['$>', '0@src-1'], ['$>', '1@src-1']]);
  const resolved = await readStream(node.url, 'linked-1', true);
  t.same(resolved.map((entry) => entry.data), [{ n: 1 }, { n: 2 }], 'the links resolve to the source events');
  t.same((await readStream(node.url, 'copied-1')).map((entry) => entry.data), [{ n: 1 }, { n: 2 }]);
  t.same((await readStream(node.url, 'streams-1')).map((entry) => [entry.eventType, entry.data]), [['$@', 'src-1']]);
});

t.test('emitting without emit enabled faults the projection with the reference message', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('src-1', -2, newEvents(1));
  await createProjection(node.url, 'continuous', 'noemit', 'fromStream("src-1").when({$any: function(s, e){ linkTo("x-1", e); }})');
  const info = await waitStatus(node.url, 'noemit', 'Faulted');
  t.match(String(info.stateReason), /'emit' is not allowed by the projection\/configuration\/mode/);
  t.same(await readStream(node.url, 'x-1'), [], 'nothing was written');
});

t.test('trackemittedstreams records each emitted stream once', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('src-1', -2, newEvents(3));
  await createProjection(node.url, 'continuous', 'tracker', 'fromStream("src-1").when({$any: function(s, e){ emit("out-" + (e.sequenceNumber % 2), "T", {}); }})',
    { emit: 'true', trackemittedstreams: 'true' });
  await waitCaughtUp(node, 'tracker');
  const tracked = await readStream(node.url, '$projections-tracker-emittedstreams');
  t.same(tracked.map((entry) => (entry.data as { streamId: string }).streamId).sort(), ['out-0', 'out-1']);
});

t.test('log() writes to the node log without failing the projection', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('src-1', -2, newEvents(2));
  await createProjection(node.url, 'continuous', 'logger', `fromStream("src-1").when({$init: ${COUNT}, $any: function(s, e){ log("seen", e.sequenceNumber); s.count++; }})`);
  await waitCaughtUp(node, 'logger');
  t.same(await projectionState(node.url, 'logger'), { count: 2 });
});

t.test('$includeLinks gives fromAll the link events themselves', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('a-1', -2, newEvents(1));
  await node.engine.append('links-1', -2, [{ eventId: crypto.randomUUID(), eventType: '$>', data: Buffer.from('0@a-1'), metadata: Buffer.alloc(0), isJson: false }]);
  await createProjection(node.url, 'continuous', 'withlinks', `options({$includeLinks: true}); fromAll().when({$init: ${COUNT}, $any: function(s){ s.count++; }})`);
  await createProjection(node.url, 'continuous', 'nolinks', `fromAll().when({$init: ${COUNT}, $any: function(s){ s.count++; }})`);
  await waitCaughtUp(node, 'withlinks');
  await waitCaughtUp(node, 'nolinks');
  t.same(await projectionState(node.url, 'withlinks'), { count: 2 });
  t.same(await projectionState(node.url, 'nolinks'), { count: 1 });
});
