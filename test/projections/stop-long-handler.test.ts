/**
 * A projection can always be stopped (regression: a disable, an abort or the node's shutdown
 * waited for the page in hand, so a handler that looped under a raised execution timeout held
 * the projection, and the node's shutdown, for as long as that timeout).
 */
import t from 'tap';
import { adminFetch } from '../helpers/auth.js';
import { newEvents } from '../helpers/engine.js';
import { createProjection, projectionInfo, projectionState, startProjectionsNode, waitCaughtUp, type ProjectionsNode } from '../helpers/projections.js';
import { pollUntil, withDeadline } from '../helpers/wait.js';

const ADMIN = { name: 'admin', groups: ['$admins'] };
/** Ten minutes: the handler below would run for all of it. */
const RAISED_TIMEOUT_MS = 600_000;

const SPINNER = `fromStream("spin-1").when({
  $init: function () { return { handled: 0 }; },
  Quick: function (s) { s.handled++; return s; },
  Spin: function (s) { for (;;) {} }
})`;

const command = async (node: ProjectionsNode, what: string) =>
  withDeadline(adminFetch(`${node.url}/projection/spin/command/${what}`, { method: 'POST' }), `${what} of a projection stuck in a handler`);

async function stuckInHandler(node: ProjectionsNode): Promise<void> {
  await pollUntil('the projection to be running its handler', () => node.projections.get(ADMIN, 'spin').handling, { intervalMs: 10 });
}

t.test('disable, abort and shutdown stop a projection whose handler runs on under a raised timeout', async (t) => {
  const node = await startProjectionsNode(t);
  await createProjection(node.url, 'continuous', 'spin', SPINNER, { enabled: 'no' });
  const config = await adminFetch(`${node.url}/projection/spin/config`, { method: 'PUT', body: JSON.stringify({ projectionExecutionTimeout: RAISED_TIMEOUT_MS }) });
  t.equal(config.status, 200);
  await node.engine.append('spin-1', -2, newEvents(2, 'Quick'));
  t.equal((await command(node, 'enable')).status, 200);
  await waitCaughtUp(node, 'spin');
  await node.engine.append('spin-1', -2, newEvents(1, 'Spin'));
  await stuckInHandler(node);

  t.equal((await command(node, 'disable')).status, 200, 'the disable is answered');
  const disabled = await projectionInfo(node.url, 'spin');
  t.equal(disabled.status, 'Stopped', 'and the projection is stopped, not faulted');
  t.equal(disabled.stateReason, '');
  t.same(await projectionState(node.url, 'spin'), { handled: 2 }, 'the state of the events handled before the cut-off page is kept');

  t.equal((await command(node, 'enable')).status, 200);
  await stuckInHandler(node);
  t.equal((await command(node, 'abort')).status, 200, 'the abort is answered');
  t.equal((await projectionInfo(node.url, 'spin')).status, 'Aborted');

  t.equal((await command(node, 'enable')).status, 200);
  await stuckInHandler(node);
  await withDeadline(node.projections.close(), 'the projections to close for the node\'s shutdown');
  t.pass('the node\'s shutdown stopped it');
});

t.test('a disable and the shutdown stop a projection whose $init runs on while it starts', async (t) => {
  const node = await startProjectionsNode(t);
  await createProjection(node.url, 'continuous', 'spin', 'fromStream("spin-2").when({$init: function () { for (;;) {} }, $any: function (s) { return s; }})', { enabled: 'no' });
  const config = await adminFetch(`${node.url}/projection/spin/config`, { method: 'PUT', body: JSON.stringify({ projectionExecutionTimeout: RAISED_TIMEOUT_MS }) });
  t.equal(config.status, 200);
  // The enable is answered once the start is done: here, once the disable has cut $init off.
  const enabling = command(node, 'enable');
  await stuckInHandler(node);
  t.equal((await command(node, 'disable')).status, 200, 'the disable is answered');
  t.equal((await enabling).status, 200);
  t.equal((await projectionInfo(node.url, 'spin')).status, 'Stopped');

  const enablingAgain = command(node, 'enable');
  await stuckInHandler(node);
  await withDeadline(node.projections.close(), 'the projections to close for the node\'s shutdown');
  t.equal((await enablingAgain).status, 200);
});
