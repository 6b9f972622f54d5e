/**
 * One stream, a page at a time, newest first, with links to newer and older pages; each event's
 * type, number, time, data and metadata; the append form and the delete buttons. The newest
 * page updates by itself: a long poll of the page after it answers when an event is written.
 */
import { useEffect } from 'preact/hooks';
import { ApiError, type Api } from '../lib/api.js';
import { prettyJson } from '../lib/body.js';
import { localStore } from '../lib/browser-storage.js';
import { entryReference, linkTarget, LINK_EVENT_TYPE, navigation, pagePath, viaLink, type Feed, type FeedEntry, type PagePosition } from '../lib/feed.js';
import { rememberStream } from '../lib/recent.js';
import { formatRoute, type Route } from '../lib/routes.js';
import { FEED, newerEvent } from '../lib/long-poll.js';
import { ConfirmButton, ErrorBanner, Pre } from '../components/ui.js';
import { every, LiveIndicator, untilAborted, useLive } from '../components/live.js';
import { AppendForm } from './append.js';

/** How often a page of a stream that does not exist (yet) is asked again. */
const MISSING_RETRY_MS = 5000;

function pageRoute(position: PagePosition): string {
  return formatRoute({ page: 'stream', stream: position.stream, from: position.from, direction: position.direction });
}

function EventRow({ entry }: { entry: FeedEntry }) {
  const reference = entryReference(entry);
  const via = viaLink(entry);
  const target = entry.summary === LINK_EVENT_TYPE ? linkTarget(entry.data) : undefined;
  const data = entry.data === undefined || entry.data === null ? undefined : prettyJson(entry.data) ?? entry.data;
  const metadata = entry.metaData ? prettyJson(entry.metaData) ?? entry.metaData : undefined;
  return (
    <article class="event" data-name="event">
      <header>
        {reference ? <a href={formatRoute({ page: 'event', ...reference })}>{entry.title}</a> : <span>{entry.title}</span>}
        <span class="type">{entry.summary}</span>
        {entry.isRedacted ? <span class="badge badge-redacted" data-name="redacted" title="The data of this event was removed by svcdb redact">Redacted</span> : null}
        <time>{entry.updated}</time>
        {via ? <a class="via" href={formatRoute({ page: 'event', ...via })}>{`via link ${via.eventNumber}@${via.stream}`}</a> : null}
        {target ? <a class="follow" href={formatRoute({ page: 'event', ...target })}>{`follow link to ${target.eventNumber}@${target.stream}`}</a> : null}
      </header>
      {entry.isRedacted ? <p class="muted">Its data was removed by redaction; type, metadata and time stay.</p>
        : data === undefined ? <p class="muted">Not JSON: open the event to see its bytes.</p> : <Pre text={data} label="data" />}
      {metadata ? <Pre text={metadata} label="metadata" /> : null}
    </article>
  );
}

function Navigation({ feed }: { feed: Feed }) {
  const pages = navigation(feed);
  const link = (position: PagePosition | undefined, label: string, rel: string) =>
    position ? <a rel={rel} href={pageRoute(position)}>{label}</a> : <span class="muted">{label}</span>;
  return (
    <nav class="pager">
      {link(pages.newest, 'Newest', 'first')}{link(pages.newer, 'Newer', 'previous')}{link(pages.older, 'Older', 'next')}{link(pages.oldest, 'Oldest', 'last')}
    </nav>
  );
}

function DeleteButtons({ api, stream, done }: { api: Api; stream: string; done: () => void }) {
  const remove = (hard: boolean) => async () => {
    await api.request(`/streams/${encodeURIComponent(stream)}`, { method: 'DELETE', headers: { 'svc-harddelete': String(hard) } });
    done();
  };
  return (
    <div class="buttons">
      <ConfirmButton name="soft-delete" label="Delete" confirmLabel="Yes, delete it" question={`Delete the stream '${stream}'? Its events stop being readable; a new append starts it again.`} onConfirm={remove(false)} />
      <ConfirmButton name="hard-delete" label="Delete forever" confirmLabel="Yes, delete it forever" question={`Delete the stream '${stream}' forever? It can never be written or read again.`} onConfirm={remove(true)} />
    </div>
  );
}

function statusMessage(error: unknown, stream: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.status === 404) return `The stream '${stream}' has no events (it does not exist, or was deleted).`;
  if (error.status === 410) return `The stream '${stream}' was deleted forever.`;
  return undefined;
}

type Loaded = { feed: Feed } | { missing: string };

export function StreamPage({ api, route }: { api: Api; route: Extract<Route, { page: 'stream' }> }) {
  const { stream, from, direction } = route;
  useEffect(() => { rememberStream(localStore(), stream); }, [stream]);
  const atHead = from === undefined || from === 'head';
  const loaded = useLive<Loaded>(async (signal) => {
    try {
      return { feed: await api.json<Feed>(pagePath(stream, from, direction), { accept: FEED, signal }) };
    } catch (error) {
      const missing = statusMessage(error, stream);
      if (missing === undefined) throw error;
      return { missing };
    }
  }, (data, signal) => {
    if ('missing' in data) return every(MISSING_RETRY_MS)(data, signal);
    // Older pages do not change as events are written: only the newest page follows the stream.
    return atHead ? newerEvent(api, data.feed, signal) : untilAborted(signal);
  }, [api, stream, from, direction]);
  const feed = { data: loaded.data && 'feed' in loaded.data ? loaded.data.feed : undefined, error: loaded.error, reload: loaded.reload };
  const missing = loaded.data && 'missing' in loaded.data ? loaded.data.missing : undefined;
  const isAll = stream === '$all';
  return (
    <section>
      <h1 data-name="stream-title">{stream}</h1>
      <p class="links">
        {isAll ? null : <a href={formatRoute({ page: 'metadata', stream })}>Metadata</a>}
        <button type="button" onClick={feed.reload}>Refresh</button>
      </p>
      {atHead ? <LiveIndicator live={loaded} /> : <p class="muted" data-name="live-state" data-state="older">An older page: it does not change. Newer events are on the newest page.</p>}
      {missing ? <p class="notice">{missing}</p> : <ErrorBanner error={feed.error} />}
      {feed.data ? <Navigation feed={feed.data} /> : null}
      {feed.data?.entries.length === 0 ? <p>No events on this page.</p> : null}
      <div class="events">{feed.data?.entries.map((entry) => <EventRow key={entry.id} entry={entry} />)}</div>
      {feed.data ? <Navigation feed={feed.data} /> : null}
      {isAll ? null : <AppendForm api={api} stream={stream} onAppended={feed.reload} />}
      {isAll ? null : <DeleteButtons api={api} stream={stream} done={feed.reload} />}
    </section>
  );
}
