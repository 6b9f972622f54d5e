/**
 * The console's shell: the login form until the user has signed in for this tab, then the
 * navigation and the page the URL's fragment names.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Api } from './lib/api.js';
import { formatRoute, parseRoute, titleOf, type Route } from './lib/routes.js';
import { Session, type Credentials } from './lib/session.js';
import { Login } from './pages/login.js';
import { Dashboard } from './pages/dashboard.js';
import { StreamsPage } from './pages/streams.js';
import { StreamPage } from './pages/stream.js';
import { EventPage } from './pages/event.js';
import { MetadataPage } from './pages/metadata.js';
import { UsersPage } from './pages/users.js';
import { AdminPage } from './pages/admin.js';
import { ScavengePage } from './pages/scavenge.js';
import { StatsPage } from './pages/stats.js';
import { SubscriptionsPage, SubscriptionPage } from './pages/subscriptions.js';
import { ProjectionsPage, ProjectionPage, QueryPage } from './pages/projections.js';
import { AccountPage, type CurrentUser } from './pages/account.js';
import { mayOpen, NO_RIGHTS, pageAudience, rightsOf, usesDefaultPassword, type Rights } from './lib/rights.js';
import { Notice, useLoad } from './components/ui.js';

const NAVIGATION: Array<[Route['page'], string]> = [
  ['dashboard', 'Dashboard'], ['stats', 'Statistics'], ['streams', 'Streams'], ['subscriptions', 'Subscriptions'], ['projections', 'Projections'],
  ['query', 'Query'], ['users', 'Users'], ['scavenge', 'Scavenge'], ['admin', 'Admin'],
];

function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

function Page({ route, api, rights }: { route: Route; api: Api; rights: Rights }) {
  if (!mayOpen(route.page, rights)) return <Notice text={`This page is for ${pageAudience(route.page)}; ${api.login} is not one of them.`} />;
  switch (route.page) {
    case 'dashboard': return <Dashboard api={api} />;
    case 'streams': return <StreamsPage api={api} />;
    case 'stream': return <StreamPage api={api} route={route} />;
    case 'event': return <EventPage api={api} stream={route.stream} eventNumber={route.eventNumber} />;
    case 'metadata': return <MetadataPage api={api} stream={route.stream} />;
    case 'users': return <UsersPage api={api} />;
    case 'admin': return <AdminPage api={api} />;
    case 'scavenge': return <ScavengePage api={api} />;
    case 'stats': return <StatsPage api={api} />;
    case 'subscriptions': return <SubscriptionsPage api={api} rights={rights} />;
    case 'subscription': return <SubscriptionPage api={api} stream={route.stream} group={route.group} rights={rights} />;
    case 'projections': return <ProjectionsPage api={api} />;
    case 'projection': return <ProjectionPage api={api} name={route.name} />;
    case 'query': return <QueryPage api={api} />;
    case 'account': return null;
  }
}

/** The section of the navigation a page belongs to. */
function sectionOf(route: Route): Route['page'] {
  switch (route.page) {
    case 'stream': case 'event': case 'metadata': return 'streams';
    case 'subscription': return 'subscriptions';
    case 'projection': return 'projections';
    default: return route.page;
  }
}

export function App() {
  const session = useMemo(() => new Session(sessionStorage), []);
  const [credentials, setCredentials] = useState<Credentials | undefined>(() => session.current());
  const route = useRoute();
  const api = useMemo(() => (credentials ? new Api(credentials, location.origin) : undefined), [credentials]);
  useEffect(() => { document.title = api ? titleOf(route) : 'Sign in · svcdb'; }, [api, route]);
  if (!api || !credentials) {
    return <Login onSignIn={(signedIn) => { session.signIn(signedIn); setCredentials(signedIn); }} />;
  }
  const signIn = (signedIn: Credentials | undefined) => {
    if (signedIn) session.signIn(signedIn);
    else session.signOut();
    setCredentials(signedIn);
  };
  return <Shell api={api} credentials={credentials} route={route} signIn={signIn} />;
}

/** Where the typing goes: a shortcut key pressed in a field is the field's. */
function typingIn(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

/**
 * Keys for the main actions, outside fields: `/` goes to the page's search or filter (the field
 * marked for it, or the first), `g` then a letter opens a page: d(ashboard), s(treams), t(statistics), u(subscriptions),
 * p(rojections), q(uery), c (scavenge), a(dmin).
 */
function useShortcuts(): void {
  useEffect(() => {
    const pages: Record<string, Route['page']> = { d: 'dashboard', s: 'streams', t: 'stats', u: 'subscriptions', p: 'projections', q: 'query', c: 'scavenge', a: 'admin' };
    let leader = false;
    const press = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || typingIn(event.target)) return;
      if (leader) {
        leader = false;
        const page = pages[event.key];
        if (page) location.hash = formatRoute({ page } as Route);
        return;
      }
      if (event.key === 'g') leader = true;
      if (event.key === '/') {
        const field = document.querySelector<HTMLInputElement>('main [data-shortcut=search]') ?? document.querySelector<HTMLInputElement>('main input:not([type=checkbox]), main textarea');
        if (field) {
          event.preventDefault();
          field.focus();
        }
      }
    };
    addEventListener('keydown', press);
    return () => removeEventListener('keydown', press);
  }, []);
}

/**
 * The signed-in console: the navigation offers only the pages the user's groups may use (until
 * the node has said who the user is, none of the restricted ones), and a default user still on
 * the default password is told so on every page.
 */
function Shell({ api, credentials, route, signIn }: { api: Api; credentials: Credentials; route: Route; signIn: (credentials: Credentials | undefined) => void }) {
  const me = useLoad((signal) => api.json<{ data: CurrentUser }>('/users/$current', { signal }).then((reply) => reply.data), [api]);
  const rights = me.data ? rightsOf(me.data.groups) : NO_RIGHTS;
  const section = sectionOf(route);
  useShortcuts();
  return (
    <div class="shell">
      <a class="skip" href="#content" onClick={(event) => { event.preventDefault(); document.getElementById('content')?.focus(); }}>Skip to the page</a>
      <header>
        <a class="brand" href="#/dashboard">svcdb</a>
        <nav>
          {NAVIGATION.filter(([page]) => mayOpen(page, rights)).map(([page, label]) => (
            <a key={page} href={formatRoute({ page } as Route)} class={page === section ? 'current' : undefined}>{label}</a>
          ))}
        </nav>
        <a class="user" href="#/account">{api.login}</a>
        <button type="button" name="sign-out" onClick={() => signIn(undefined)}>Sign out</button>
      </header>
      {usesDefaultPassword(credentials.login, credentials.password)
        ? <p class="warning" role="alert" data-name="default-password">{credentials.login} still has the default password. <a href="#/account">Change it</a> before this node holds anything of value.</p>
        : null}
      <main id="content" tabIndex={-1}>
        {route.page === 'account'
          ? <AccountPage api={api} user={me.data} passwordChanged={(password) => signIn({ login: credentials.login, password })} />
          : me.loading && me.data === undefined ? null : <Page route={route} api={api} rights={rights} />}
      </main>
    </div>
  );
}
