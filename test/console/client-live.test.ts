// The console's live parts: chart geometry and the node's statistics history, sizes and durations,
// the editor's highlighting, and the API client, which talks to a real node here.
import t from 'tap';
import { Api, ApiError, sameOriginPath } from '../../web/lib/api.js';
import { tokenize } from '../../web/lib/highlight.js';
import { formatBytes, formatDuration } from '../../src/common/human-units.js';
import { niceTop, points } from '../../web/lib/chart-points.js';
import type { StatsSample } from '../../src/common/stats-history-document.js';
import { historyPath, NodeHistory } from '../../web/lib/node-history.js';
import { startNode } from '../helpers/node.js';

t.test('chart geometry: points placed by time in the window, scaled to a round top', async (t) => {
  const values = [{ timeMs: 1000, value: 0 }, { timeMs: 6000, value: 5 }, { timeMs: 11000, value: 10 }];
  t.equal(points(values, 1000, 11000, 10, 100, 10), '0.0,10.0 50.0,5.0 100.0,0.0');
  t.equal(points(values, 6000, 11000, 20, 100, 10), '0.0,7.5 100.0,5.0', 'points before the window are left out');
  t.equal(points([], 0, 1000, 1, 100, 10), '');
  t.same([0, 0.3, 1, 7, 10, 11, 240, 5001].map(niceTop), [1, 0.5, 1, 10, 10, 20, 500, 10000]);
});

t.test('the node\'s history: newer samples appended, a restarted node starts it over, bounded', async (t) => {
  const sample = (sequence: number) => ({ sequence, time: new Date(sequence * 1000).toISOString(), appendsPerSecond: sequence, queueLengths: { Writer: sequence } }) as unknown as StatsSample;
  const history = new NodeHistory();
  t.equal(historyPath(history), '/stats/history');
  history.add({ periodMs: 1000, samplesMax: 3, samples: [sample(0), sample(1)] });
  t.equal(historyPath(history), '/stats/history?after=1');
  history.add({ periodMs: 1000, samplesMax: 3, samples: [sample(2), sample(3)] });
  t.same(history.series('appendsPerSecond').map((point) => point.value), [1, 2, 3], 'the newest samplesMax kept');
  t.same(history.queueNames(), ['Writer']);
  history.add({ periodMs: 1000, samplesMax: 3, samples: [sample(0)] });
  t.same(history.series('appendsPerSecond').map((point) => point.value), [0], 'a lower sequence: the node restarted');
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
