/**
 * The live tail of `$all`: the newest events, then every new one as it is written. It reads
 * forward from the end with a long poll, so the node answers as soon as an event arrives and an
 * idle tail costs one request per poll period.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../lib/api.js';
import { entryReference, linkOf, type Feed, type FeedEntry } from '../lib/feed.js';
import { formatRoute } from '../lib/routes.js';
import { ErrorBanner } from '../components/ui.js';

export const TAIL_ENTRIES_MAX = 50;
const LONG_POLL_SECONDS = 10;
const RETRY_MS = 3000;
const FEED = 'application/vnd.svc.atom+json';

async function follow(api: Api, signal: AbortSignal, show: (entries: FeedEntry[]) => void, fail: (error: unknown) => void): Promise<void> {
  const head = await api.json<Feed>('/streams/%24all/head/backward/20?embed=rich', { accept: FEED, signal });
  show(head.entries);
  let next = linkOf(head.links, 'previous')?.uri;
  while (!signal.aborted && next !== undefined) {
    try {
      const page: Feed = await api.json<Feed>(next, { accept: FEED, signal, headers: { 'svc-longpoll': String(LONG_POLL_SECONDS) } });
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
  useEffect(() => {
    const controller = new AbortController();
    const show = (more: FeedEntry[]) => setEntries((shown) => [...more, ...shown].slice(0, TAIL_ENTRIES_MAX));
    follow(api, controller.signal, show, setError).catch((caught) => { if (!controller.signal.aborted) setError(caught); });
    return () => controller.abort();
  }, [api]);
  return (
    <section class="tail">
      <h2>Live: $all</h2>
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
