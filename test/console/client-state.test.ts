// The console's client logic that keeps state: the tab's credentials (session storage only),
// recently opened streams (names only), and the page addresses in the URL's fragment.
import t from 'tap';
import { parseRoute, formatRoute, titleOf, type Route } from '../../web/lib/routes.js';
import { recentStreams, rememberStream, RECENT_STREAMS_MAX } from '../../web/lib/recent.js';
import { basicAuthorization, Session, type KeyValueStore } from '../../web/lib/session.js';

function memoryStore(): KeyValueStore & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    entries,
    getItem: (key) => entries.get(key) ?? null,
    setItem: (key, value) => void entries.set(key, value),
    removeItem: (key) => void entries.delete(key),
  };
}

t.test('a session keeps the credentials in the store it is given and forgets them on sign-out', async (t) => {
  const store = memoryStore();
  const session = new Session(store);
  t.equal(session.current(), undefined);
  session.signIn({ login: 'admin', password: 'changeit' });
  t.same(new Session(store).current(), { login: 'admin', password: 'changeit' }, 'a reload of the tab finds them');
  session.signOut();
  t.equal(session.current(), undefined);
  t.equal(store.entries.size, 0, 'nothing is left behind');
});

t.test('a damaged stored session is dropped', async (t) => {
  const store = memoryStore();
  store.setItem('svcdb.console.credentials', '{"login": 1');
  t.equal(new Session(store).current(), undefined);
  t.equal(store.entries.size, 0);
});

t.test('Basic credentials are UTF-8 encoded', async (t) => {
  t.equal(basicAuthorization({ login: 'admin', password: 'changeit' }), `Basic ${Buffer.from('admin:changeit').toString('base64')}`);
  t.equal(basicAuthorization({ login: 'zoë', password: 'pässword' }), `Basic ${Buffer.from('zoë:pässword', 'utf8').toString('base64')}`);
});

t.test('recent streams: newest first, each once, bounded, names only', async (t) => {
  const store = memoryStore();
  rememberStream(store, 'a');
  rememberStream(store, 'b');
  t.same(rememberStream(store, 'a'), ['a', 'b']);
  for (let index = 0; index < RECENT_STREAMS_MAX + 5; index += 1) rememberStream(store, `s${index}`);
  const recent = recentStreams(store);
  t.equal(recent.length, RECENT_STREAMS_MAX);
  t.equal(recent[0], `s${RECENT_STREAMS_MAX + 4}`);
  t.same(JSON.parse(store.entries.get('svcdb.console.recentStreams')!), recent, 'the store holds the list of names and nothing else');
  store.setItem('svcdb.console.recentStreams', '[1, "x", {"a": 1}]');
  t.same(recentStreams(store), ['x'], 'anything but a name is ignored');
  store.setItem('svcdb.console.recentStreams', 'not json');
  t.same(recentStreams(store), []);
});

t.test('routes survive formatting and parsing, whatever the names hold', async (t) => {
  const routes: Route[] = [
    { page: 'dashboard' }, { page: 'users' }, { page: 'scavenge' }, { page: 'query' },
    { page: 'stream', stream: 'orders/1 ?#&%' },
    { page: 'stream', stream: '$all', from: '0000000000000000000000000000000A', direction: 'forward' },
    { page: 'event', stream: '$$$users', eventNumber: '3' },
    { page: 'metadata', stream: 'a b' },
    { page: 'subscription', stream: 's/1', group: 'g?1' },
    { page: 'projection', name: '$by_category' },
  ];
  for (const route of routes) t.same(parseRoute(formatRoute(route)), route, formatRoute(route));
  t.same(parseRoute(''), { page: 'dashboard' }, 'no fragment is the dashboard');
  t.same(parseRoute('#/nowhere/at/all'), { page: 'dashboard' });
  t.same(parseRoute('#/streams/%E0%A4%A'), { page: 'stream', stream: '%E0%A4%A', from: undefined, direction: undefined }, 'a bad escape is taken as written');
  t.same(parseRoute('#/streams/x?direction=sideways'), { page: 'stream', stream: 'x', from: undefined, direction: undefined });
});

t.test('each page has a title that names what it shows', async (t) => {
  t.equal(titleOf({ page: 'dashboard' }), 'Dashboard · svcdb');
  t.equal(titleOf({ page: 'stream', stream: 'orders-1' }), 'Stream orders-1 · svcdb');
  t.equal(titleOf({ page: 'event', stream: 'orders-1', eventNumber: '4' }), '4@orders-1 · svcdb');
  t.equal(titleOf({ page: 'subscription', stream: 's', group: 'g' }), 'Subscription g on s · svcdb');
  t.equal(titleOf({ page: 'projection', name: '$by_category' }), 'Projection $by_category · svcdb');
});
