/**
 * fromCategory and fromCategories on a real node read the category as $by_category defines it:
 * its `$ce-` stream, filled by its separator and first/last rule. Without $by_category running a
 * category projection sees nothing; once it runs, the category projection catches up. Deletions of
 * a category's streams reach $deleted through the links $by_category writes for them.
 */
import t from 'tap';
import { adminFetch } from '../helpers/auth.js';
import { newEvents } from '../helpers/engine.js';
import { createProjection, projectionInfo, projectionState, readStream, startProjectionsNode, waitCaughtUp } from '../helpers/projections.js';

const COUNT = '.when({$init: function(){ return {count:0}; }, $any: function(s){ s.count++; }})';

t.test('the category of $by_category\'s source (last separator) is what fromCategory selects', async (t) => {
  const node = await startProjectionsNode(t);
  const changed = await adminFetch(`${node.url}/projection/$by_category/query`, { method: 'PUT', body: 'last\n-' });
  t.equal(changed.status, 200);
  t.equal((await adminFetch(`${node.url}/projection/$by_category/command/enable`, { method: 'POST' })).status, 200);
  await node.engine.append('shop-eu-1', -2, newEvents(2));
  await node.engine.append('shop-eu-2', -2, newEvents(1));
  await node.engine.append('shop-us-1', -2, newEvents(4));
  await node.engine.append('shop-1', -2, newEvents(8));
  await createProjection(node.url, 'continuous', 'eu', `fromCategory("shop-eu")${COUNT}`);
  await createProjection(node.url, 'continuous', 'shop', `fromCategory("shop")${COUNT}`);
  await createProjection(node.url, 'continuous', 'both', `fromCategories(["shop-eu", "shop-us"])${COUNT}`);
  for (const name of ['eu', 'shop', 'both']) await waitCaughtUp(node, name);
  t.same(await projectionState(node.url, 'eu'), { count: 3 }, 'shop-eu-1 and shop-eu-2');
  t.same(await projectionState(node.url, 'shop'), { count: 8 }, 'only shop-1: the others are in shop-eu and shop-us');
  t.same(await projectionState(node.url, 'both'), { count: 7 });
});

t.test('without $by_category a category projection sees nothing; once it runs, the projection catches up', async (t) => {
  const node = await startProjectionsNode(t);
  await node.engine.append('acc-1', -2, newEvents(3));
  await createProjection(node.url, 'continuous', 'accounts', `fromCategory("acc").foreachStream()${COUNT}`);
  await waitCaughtUp(node, 'accounts');
  t.equal(await projectionState(node.url, 'accounts', 'acc-1'), undefined, 'no $ce-acc yet, no event');
  t.match((await projectionInfo(node.url, 'accounts')).status, /^Running/);
  t.equal((await adminFetch(`${node.url}/projection/$by_category/command/enable`, { method: 'POST' })).status, 200);
  await node.engine.append('acc-2', -2, newEvents(1));
  await waitCaughtUp(node, 'accounts');
  t.same(await projectionState(node.url, 'accounts', 'acc-1'), { count: 3 }, 'the links $by_category wrote for the earlier events');
  t.same(await projectionState(node.url, 'accounts', 'acc-2'), { count: 1 });
  t.same(await projectionState(node.url, 'accounts', '$ce-acc'), undefined, 'partitions are the streams linked to, not the $ce- stream');
});

t.test('soft and hard deletes of a category\'s streams are linked into $ce- and reach $deleted in their partitions', async (t) => {
  const node = await startProjectionsNode(t, { startStandardProjections: true });
  const source = `fromCategory("cart").foreachStream().when({
    $init: function(){ return {count:0, deletions:[]}; },
    $any: function(s){ s.count++; },
    $deleted: function(s, e){ s.deletions.push(e.streamId); }
  })`;
  await createProjection(node.url, 'continuous', 'carts', source);
  await node.engine.append('cart-1', -2, newEvents(2));
  await node.engine.append('cart-2', -2, newEvents(1));
  await node.engine.append('cart-3', -2, newEvents(1));
  await waitCaughtUp(node, 'carts');
  await node.engine.deleteStream('cart-1', -2, false);
  await node.engine.deleteStream('cart-2', -2, true);
  await waitCaughtUp(node, 'carts');
  t.same(await projectionState(node.url, 'carts', 'cart-1'), { count: 2, deletions: ['cart-1'] }, 'soft delete');
  t.same(await projectionState(node.url, 'carts', 'cart-2'), { count: 1, deletions: ['cart-2'] }, 'hard delete');
  t.same(await projectionState(node.url, 'carts', 'cart-3'), { count: 1, deletions: [] });
  const links = (await readStream(node.url, '$ce-cart')).slice(-2);
  t.same(links.map((entry) => [entry.eventType, entry.data]), [['$>', '0@$$cart-1'], ['$>', '9223372036854775807@cart-2']], 'links to the deleting records');
  t.same(links.map((entry) => [(entry.metaData as Record<string, unknown>).$o, (entry.metaData as Record<string, unknown>).$deleted]), [['cart-1', -1], ['cart-2', -1]]);
});

t.test('a projection of streams or categories is positioned by event numbers: position, lastCheckpoint and Svc-Position', async (t) => {
  const node = await startProjectionsNode(t, { startStandardProjections: true });
  await node.engine.append('pos-1', -2, newEvents(2));
  await node.engine.append('pos-2', -2, newEvents(3));
  await node.engine.append('other-1', -2, newEvents(1));
  await createProjection(node.url, 'continuous', 'cat', `fromCategory("pos")${COUNT}`);
  await createProjection(node.url, 'continuous', 'two', `fromStreams(["pos-1", "other-1"])${COUNT}`);
  await createProjection(node.url, 'continuous', 'all', `fromAll()${COUNT}`);
  for (const name of ['cat', 'two', 'all']) await waitCaughtUp(node, name);
  t.match(await projectionInfo(node.url, 'cat'), { position: '$ce-pos: 4', lastCheckpoint: '$ce-pos: -1' });
  t.match(await projectionInfo(node.url, 'two'), { position: 'pos-1: 1; other-1: 0' });
  t.match(await projectionInfo(node.url, 'all'), { position: /^C:\d+\/P:\d+$/ }, 'fromAll keeps log positions');
  const state = await adminFetch(`${node.url}/projection/cat/state`);
  t.same(JSON.parse(state.headers.get('svc-position') ?? 'null'), { $s: { '$ce-pos': 4 } });

  t.equal((await adminFetch(`${node.url}/projection/cat/command/disable`, { method: 'POST' })).status, 200);
  t.match(await projectionInfo(node.url, 'cat'), { position: '$ce-pos: 4', lastCheckpoint: '$ce-pos: 4' }, 'the checkpoint holds the position');
  t.equal((await adminFetch(`${node.url}/projection/cat/command/enable`, { method: 'POST' })).status, 200);
  await node.engine.append('pos-3', -2, newEvents(1));
  await waitCaughtUp(node, 'cat');
  t.match(await projectionInfo(node.url, 'cat'), { position: '$ce-pos: 5', lastCheckpoint: '$ce-pos: 4' }, 'resumed from the checkpoint\'s position');
  t.same(await projectionState(node.url, 'cat'), { count: 6 });
});
