/**
 * The console's pages, addressed by the URL's fragment (`/web#/streams/orders`), so the node
 * serves one page and the browser's back button and bookmarks work. Names are percent-encoded
 * in the fragment: a stream name may hold any character.
 */
export type Route =
  | { page: 'dashboard' }
  | { page: 'streams' }
  | { page: 'stream'; stream: string; from?: string; direction?: 'forward' | 'backward' }
  | { page: 'event'; stream: string; eventNumber: string }
  | { page: 'metadata'; stream: string }
  | { page: 'users' }
  | { page: 'admin' }
  | { page: 'subscriptions' }
  | { page: 'subscription'; stream: string; group: string }
  | { page: 'projections' }
  | { page: 'projection'; name: string }
  | { page: 'query' }
  | { page: 'scavenge' }
  | { page: 'stats' }
  | { page: 'account' };

const SIMPLE = ['dashboard', 'streams', 'users', 'admin', 'subscriptions', 'projections', 'query', 'scavenge', 'stats', 'account'] as const;

export function parseRoute(hash: string): Route {
  const [path, query = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  const parts = path.split('/').map((part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  });
  const params = new URLSearchParams(query);
  const [page, first, second] = parts;
  if ((SIMPLE as readonly string[]).includes(page) && parts.length === 1) return { page } as Route;
  if (page === 'streams' && first) {
    const direction = params.get('direction');
    return {
      page: 'stream', stream: first, from: params.get('from') ?? undefined,
      direction: direction === 'forward' || direction === 'backward' ? direction : undefined,
    };
  }
  if (page === 'event' && first && second !== undefined) return { page: 'event', stream: first, eventNumber: second };
  if (page === 'metadata' && first) return { page: 'metadata', stream: first };
  if (page === 'subscriptions' && first && second !== undefined) return { page: 'subscription', stream: first, group: second };
  if (page === 'projections' && first) return { page: 'projection', name: first };
  return { page: 'dashboard' };
}

export function formatRoute(route: Route): string {
  const name = encodeURIComponent;
  switch (route.page) {
    case 'stream': {
      const params = new URLSearchParams();
      if (route.from !== undefined) params.set('from', route.from);
      if (route.direction !== undefined) params.set('direction', route.direction);
      const query = params.toString();
      return `#/streams/${name(route.stream)}${query ? `?${query}` : ''}`;
    }
    case 'event': return `#/event/${name(route.stream)}/${name(route.eventNumber)}`;
    case 'metadata': return `#/metadata/${name(route.stream)}`;
    case 'subscription': return `#/subscriptions/${name(route.stream)}/${name(route.group)}`;
    case 'projection': return `#/projections/${name(route.name)}`;
    default: return `#/${route.page}`;
  }
}

const PAGE_TITLES: Record<Route['page'], string> = {
  dashboard: 'Dashboard', streams: 'Streams', stream: 'Stream', event: 'Event', metadata: 'Metadata', users: 'Users',
  admin: 'Admin', subscriptions: 'Subscriptions', subscription: 'Subscription', projections: 'Projections',
  projection: 'Projection', query: 'Query', scavenge: 'Scavenge', stats: 'Statistics', account: 'Account',
};

/** The browser tab's title for a page: what it shows first, so tabs and history tell pages apart. */
export function titleOf(route: Route): string {
  const subject = (() => {
    switch (route.page) {
      case 'stream': case 'metadata': return `${PAGE_TITLES[route.page]} ${route.stream}`;
      case 'event': return `${route.eventNumber}@${route.stream}`;
      case 'subscription': return `Subscription ${route.group} on ${route.stream}`;
      case 'projection': return `Projection ${route.name}`;
      default: return PAGE_TITLES[route.page];
    }
  })();
  return `${subject} · svcdb`;
}
