// The console's live parts: dashboard figures from /stats samples, the editor's highlighting,
// and the API client, which talks to a real node here.
import t from 'tap';
import { Api, ApiError, sameOriginPath } from '../../web/lib/api.js';
import { tokenize } from '../../web/lib/highlight.js';
import { figuresOf, formatBytes, formatDuration, SAMPLES_MAX, Series } from '../../web/lib/series.js';
import { points } from '../../web/lib/chart-points.js';
import { startNode } from '../helpers/node.js';

function stats(appends: number, reads: number, requests: number) {
  return {
    sys: { drive: { '/': { availableBytes: 1024 ** 3, usage: 42.5 } } },
    svc: {
      queue: { StorageWriter: { length: 2, totalItemsProcessed: appends }, HttpRequests: { length: 1, totalItemsProcessed: requests } },
      readIndex: { cachedRecord: reads, notCachedRecord: 1 }, writer: { lastFlushDelayMs: 1.5 },
    },
  };
}

t.test('figures: counters become rates per second, gauges stay as they are', async (t) => {
  const first = { timeMs: 0, stats: stats(10, 100, 5) };
  const second = { timeMs: 2000, stats: stats(30, 140, 9) };
  t.same(figuresOf(first, second), {
    appendsPerSecond: 10, readsPerSecond: 20, requestsPerSecond: 2, queueLength: 3, flushMs: 1.5, diskUsedPercent: 42.5, diskFreeBytes: 1024 ** 3,
  });
  t.equal(figuresOf(undefined, first).appendsPerSecond, 0, 'no rate from a single sample');
  t.equal(figuresOf(second, { timeMs: 3000, stats: stats(1, 1, 1) }).appendsPerSecond, 0, 'a counter that went back (a restart) gives no rate');
  t.equal(figuresOf(undefined, { timeMs: 0, stats: {} }).queueLength, 0, 'missing figures read as zero');
});

t.test('the series keeps the last SAMPLES_MAX figures, oldest first', async (t) => {
  const series = new Series();
  for (let second = 0; second < SAMPLES_MAX + 10; second += 1) series.add({ timeMs: second * 1000, stats: stats(second * 3, 0, 0) });
  t.equal(series.length, SAMPLES_MAX);
  t.same(new Set(series.values('appendsPerSecond')), new Set([3]));
  t.equal(points([0, 5, 10], 100, 10), '0.0,10.0 50.0,5.0 100.0,0.0');
  t.equal(points([], 100, 10), '');
});

t.test('sizes and durations for people', async (t) => {
  t.equal(formatBytes(512), '512 B');
  t.equal(formatBytes(1536), '1.5 KiB');
  t.equal(formatBytes(5 * 1024 ** 4), '5.0 TiB');
  t.equal(formatDuration(59), '59 s');
  t.equal(formatDuration(3725), '1 h 2 min');
  t.equal(formatDuration(90061), '1 d 1 h');
});

t.test('highlighting splits JavaScript into tokens that join back to the source', async (t) => {
  const source = "fromAll().when({ $any: (s, e) => { // count\n s.n += 1.5; return 'x\\'y'; } }) /* end";
  const tokens = tokenize(source);
  t.equal(tokens.map((token) => token.text).join(''), source);
  const kinds = (kind: string) => tokens.filter((token) => token.kind === kind).map((token) => token.text);
  t.same(kinds('builtin'), ['fromAll', 'when']);
  t.same(kinds('keyword'), ['return']);
  t.same(kinds('comment'), ['// count', '/* end']);
  t.same(kinds('string'), ["'x\\'y'"]);
  t.same(kinds('number'), ['1.5']);
  t.same(tokenize(''), []);
});

t.test('the API client', async (t) => {
  const node = await startNode(t);
  const origin = new URL(node.url).origin;
  // Node's fetch needs absolute URLs; the browser resolves the client's paths against the page.
  const fetcher = (path: string, init: RequestInit) => fetch(new URL(path, origin), { ...init, mode: undefined });
  const admin = new Api({ login: 'admin', password: 'changeit' }, origin, fetcher);

  t.test('sends the credentials and reads JSON', async (t) => {
    const current = await admin.json<{ data: { loginName: string } }>('/users/$current');
    t.equal(current.data.loginName, 'admin');
  });

  t.test('turns a refusal into an ApiError with the node\'s code', async (t) => {
    const stranger = new Api({ login: 'admin', password: 'wrong' }, origin, fetcher);
    const error = await stranger.json('/users/$current').catch((caught: unknown) => caught);
    t.ok(error instanceof ApiError);
    t.equal((error as ApiError).status, 401);
    t.match((error as ApiError).code, /^SVCDB_ERR_/);
  });

  t.test('sends JSON bodies', async (t) => {
    await admin.send('POST', '/users', { loginName: 'dora', fullName: 'Dora', groups: [], password: 'pw' });
    const user = await admin.json<{ data: { fullName: string } }>('/users/dora');
    t.equal(user.data.fullName, 'Dora');
  });

  t.test('refuses to follow a link to another origin', async (t) => {
    t.equal(sameOriginPath('http://h:1/streams/x?embed=body', 'http://h:1'), '/streams/x?embed=body');
    t.throws(() => sameOriginPath('https://elsewhere.example/streams/x', 'http://h:1'), /another origin/);
    await t.rejects(admin.json('//elsewhere.example/users'), /another origin/);
  });
});
