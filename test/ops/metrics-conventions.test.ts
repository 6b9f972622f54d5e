// /metrics of a real node against Prometheus' naming conventions: counters end in _total, sizes
// and times carry their base unit, every series explains itself, no names from another runtime;
// request duration histograms per route group whatever the URLs; projection and subscription
// series; prom-client's process and Node.js defaults.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { adminFetch } from '../helpers/auth.js';
import { scrape, scrapeHistogram, startMetricsNode } from '../helpers/metrics.js';
import { createProjection } from '../helpers/projections.js';
import { appendEvents, mustCreateGroup } from '../helpers/subscriptions.js';
import { pollUntilAsync } from '../helpers/wait.js';

const url = await startMetricsNode(t);

/** One request to each route group; the streams are all different, to show the URL is not a label. */
async function requestEachGroup(): Promise<void> {
  for (let i = 0; i < 5; i++) await appendEvents(url, `orders-${randomUUID()}`, 1);
  await appendEvents(url, 'orders', 3);
  await mustCreateGroup(url, 'orders', 'billing');
  for (const path of ['/streams/orders', '/subscriptions', '/projections/any', '/users', '/stats', '/no-such-route']) {
    await adminFetch(`${url}${path}`, { headers: { accept: 'application/json' } });
  }
}

await requestEachGroup();
await createProjection(url, 'continuous', 'counted', 'fromAll().when({$init: function(){ return {count:0}; }, $any: function(s){ s.count++; }})');

t.test('names, types, units and help texts follow the conventions', async (t) => {
  const families = await scrape(url);
  for (const family of families.values()) {
    t.match(family.name, /^[a-z][a-z0-9_]*$/, `${family.name}: snake case`);
    t.ok(family.help.length > 10, `${family.name} has a help text`);
    if (family.type === 'COUNTER') t.match(family.name, /_total$/, `${family.name}: a counter ends in _total`);
    t.notMatch(family.name, /gen[0-9]|_ms\b|_ms_|percent|_rate\b|items_count/, `${family.name}: no names from another runtime, units are base units`);
    // prom-client's nodejs_active_*_total are gauges; its defaults are not ours to rename.
    if (!family.name.startsWith('svcdb_')) continue;
    if (family.type !== 'COUNTER') t.notMatch(family.name, /_total$/, `${family.name}: only counters end in _total`);
    if (/duration|delay|_time/.test(family.name)) t.match(family.name, /_seconds(_total)?$/, `${family.name}: a time is in seconds`);
    if (/position|size|space|flushed|_sent|_received|_read_bytes|written/.test(family.name)) t.match(family.name, /_bytes(_total)?$/, `${family.name}: a size is in bytes`);
  }
  for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'process_open_fds', 'process_start_time_seconds',
    'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_gc_duration_seconds', 'nodejs_version_info']) {
    t.ok(families.has(name), `prom-client's default ${name}`);
  }
  t.notOk([...families.keys()].some((name) => name.startsWith('svcdb_proc_') || name.startsWith('svcdb_svc_')), 'no names from /stats paths');
});

t.test('request durations: one histogram per route group, with buckets, whatever the URLs', async (t) => {
  t.equal((await scrape(url)).get('svcdb_http_request_duration_seconds')?.type, 'HISTOGRAM');
  const series = await scrapeHistogram(url, 'svcdb_http_request_duration_seconds');
  const groups = new Set(series.map((metric) => metric.labels?.route));
  t.same([...groups].sort(), ['admin', 'other', 'projections', 'streams_read', 'streams_write', 'subscriptions', 'users']);
  const writes = series.filter((metric) => metric.labels?.route === 'streams_write');
  t.same(writes.map((metric) => metric.labels?.status_class), ['2xx'], 'six streams written, one series');
  t.ok(writes[0].count >= 6, 'every append counted');
  t.ok(Object.keys(writes[0].buckets).length >= 10, 'buckets for a request made');
  t.equal(writes[0].buckets['+Inf'], writes[0].count, 'the +Inf bucket holds every request');
  t.ok(series.some((metric) => metric.labels?.route === 'other' && metric.labels?.status_class === '4xx'), 'a 404 is other, 4xx');
});

t.test('subscription groups: in flight, parked, lag and processed per group', async (t) => {
  const families = await scrape(url);
  for (const name of ['svcdb_subscription_in_flight_messages', 'svcdb_subscription_parked_messages', 'svcdb_subscription_lag_events', 'svcdb_subscription_processed_messages_total']) {
    t.match(families.get(name)?.metrics, [{ labels: { subscription: 'orders::billing' } }], name);
  }
});

t.test('projections: status, events processed, position and lag per projection', async (t) => {
  const projectionValue = (families: Map<string, { metrics: Array<{ labels?: Record<string, string>; value?: string }> }>, name: string) =>
    Number(families.get(name)?.metrics.find((metric) => metric.labels?.projection === 'counted')?.value);
  await pollUntilAsync('the projection to catch up in /metrics', async () => {
    const families = await scrape(url);
    return projectionValue(families, 'svcdb_projection_lag_bytes') === 0 && projectionValue(families, 'svcdb_projection_events_processed_total') > 0;
  });
  const families = await scrape(url);
  const status = families.get('svcdb_projection_status')?.metrics.find((metric) => metric.labels?.projection === 'counted');
  t.match(status, { labels: { mode: 'Continuous', status: 'Running' }, value: '1' });
  t.ok(projectionValue(families, 'svcdb_projection_events_processed_total') >= 8, 'the appended events were counted');
  t.ok(projectionValue(families, 'svcdb_projection_position_bytes') > 0, 'a position in the log');
  t.ok(families.get('svcdb_projection_status')?.metrics.some((metric) => metric.labels?.projection === '$streams'), 'system projections too');
});
