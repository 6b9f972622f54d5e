/**
 * The live tail of `$all`: the newest events, then every new one as it is written. It reads
 * forward from the end with a long poll, so the node answers as soon as an event arrives and an
 * idle tail costs one request per poll period. What it shows is filtered (lib/tail-filter.ts).
 */
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../lib/api.js';
import { entryReference, linkOf, type Feed, type FeedEntry } from '../lib/feed.js';
import { formatRoute } from '../lib/routes.js';
import { DEFAULT_TAIL_FILTER, tailHeadPath, tailShows, type TailFilter } from '../lib/tail-filter.js';
import { FEED, longPoll } from '../lib/long-poll.js';
import { ErrorBanner, Field } from '../components/ui.js';
import { LiveIndicator, type LiveState } from '../components/live.js';

export const TAIL_ENTRIES_MAX = 50;
const RETRY_MS = 3000;

async function follow(api: Api, filter: TailFilter, signal: AbortSignal, show: (entries: FeedEntry[]) => void, fail: (error: unknown) => void): Promise<void> {
  const head = await api.json<Feed>(tailHeadPath(filter, 20), { accept: FEED, signal });
  show(head.entries);
  fail(undefined);
  let next = linkOf(head.links, 'previous')?.uri;
  while (!signal.aborted && next !== undefined) {
    try {
      const page: Feed = await longPoll(api, next, signal);
      fail(undefined);
      if (page.entries.length > 0) show(page.entries);
      // An empty page at the end has no "previous" link: ask the same page again.
      next = linkOf(page.links, 'previous')?.uri ?? next;
    } catch (error) {
      if (signal.aborted) return;
      fail(error);
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
}

export function Tail({ api }: { api: Api }) {
  const [entries, setEntries] = useState<FeedEntry[]>([]);
  const [error, setError] = useState<unknown>();
  const [live, setLive] = useState<{ state: LiveState; updatedAt?: Date }>({ state: 'connecting' });
  const [filter, setFilter] = useState<TailFilter>(DEFAULT_TAIL_FILTER);
  const [typed, setTyped] = useState<TailFilter>(DEFAULT_TAIL_FILTER);
  useEffect(() => {
    const controller = new AbortController();
    setEntries([]);
    const show = (more: FeedEntry[]) => setEntries((shown) => [...more.filter((entry) => tailShows(filter, entry)), ...shown].slice(0, TAIL_ENTRIES_MAX));
    const fail = (caught: unknown) => {
      setError(caught);
      setLive((previous) => (caught === undefined ? { state: 'live', updatedAt: new Date() } : { ...previous, state: 'retrying' }));
    };
    setLive({ state: 'connecting' });
    follow(api, filter, controller.signal, show, fail).catch((caught) => { if (!controller.signal.aborted) fail(caught); });
    return () => controller.abort();
  }, [api, filter]);
  return (
    <section class="tail">
      <h2>Live: $all</h2>
      <LiveIndicator live={{ ...live, error }} />
      <form class="inline" name="tail-filter" onSubmit={(event) => { event.preventDefault(); setFilter({ ...typed }); }}>
        <Field label="Stream starts with"><input name="tail-stream" data-shortcut="search" value={typed.streamPrefix} onInput={(event) => setTyped({ ...typed, streamPrefix: event.currentTarget.value })} /></Field>
        <Field label="Event type starts with"><input name="tail-type" value={typed.typePrefix} onInput={(event) => setTyped({ ...typed, typePrefix: event.currentTarget.value })} /></Field>
        <label class="check"><input type="checkbox" name="tail-system" checked={typed.includeSystem} onChange={(event) => setTyped({ ...typed, includeSystem: event.currentTarget.checked })} /> System events and links</label>
        <button type="submit">Filter</button>
      </form>
      <ErrorBanner error={error} />
      <table>
        <thead><tr><th>Event</th><th>Type</th><th>Time</th></tr></thead>
        <tbody data-name="tail">
          {entries.map((entry) => {
            const reference = entryReference(entry);
            return (
              <tr key={entry.id}>
                <td>{reference ? <a href={formatRoute({ page: 'event', ...reference })}>{entry.title}</a> : entry.title}</td>
                <td>{entry.summary}</td>
                <td>{entry.updated}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
