// /stats and /metrics of a real node carry per-group figures: messages in flight, parked, the
// acknowledgement rate and total, the lag behind the stream, and the consumers.
import t from 'tap';
import { join } from 'node:path';
import { adminFetch } from '../helpers/auth.js';
import { startServer } from '../helpers/cli.js';
import { tempDirectory } from '../helpers/engine.js';
import type { SubscriptionGroupFields } from '../../src/daemon/services/stats.js';
import { withDeadline } from '../helpers/wait.js';
import { ack, appendEvents, mustCreateGroup, nack, take } from '../helpers/subscriptions.js';

t.test('per-group figures in /stats and /metrics', async (t) => {
  const server = await startServer(t, { dbPath: join(tempDirectory(t), 'db') });
  await mustCreateGroup(server.url, 'orders', 'billing');
  await appendEvents(server.url, 'orders', 10);
  const taken = await take(server.url, 'orders', 'billing', 5, { consumer: 'w' });
  await ack(server.url, 'orders', 'billing', taken.ids.slice(0, 3));
  await nack(server.url, 'orders', 'billing', taken.ids.slice(3, 4), 'Park');
  const groupStats = async () => {
    const stats = await (await adminFetch(`${server.url}/stats`)).json() as { svc: { subscriptions: Record<string, SubscriptionGroupFields> } };
    return stats.svc.subscriptions['orders::billing'];
  };
  let figures = await groupStats();
  await withDeadline((async () => {
    while (figures.parked !== 1) figures = await groupStats();
  })(), 'the parked message in /stats');
  t.match(figures, { inFlight: 1, parked: 1, totalItemsProcessed: 3, processedRate: Number, connections: 1 });
  t.equal(figures.lag, 9 - 3, 'events 4 to 9 are not handled yet (the oldest, 4, is in flight)');
  const metrics = await (await adminFetch(`${server.url}/metrics`)).text();
  t.match(metrics, /^svcdb_subscription_in_flight_messages\{subscription="orders::billing"\} 1$/m);
  t.match(metrics, /^svcdb_subscription_parked_messages\{subscription="orders::billing"\} 1$/m);
  t.match(metrics, /^svcdb_subscription_lag_events\{subscription="orders::billing"\} 6$/m);
  t.match(metrics, /^svcdb_subscription_processed_messages_total\{subscription="orders::billing"\} 3$/m);
  t.match(metrics, /^svcdb_subscription_connections\{subscription="orders::billing"\} 1$/m);
  await server.process.stop('SIGTERM');
});
