/**
 * Finding a stream: open one by name, browse the streams written and created lately (gathered
 * from `$all`, lib/stream-index.ts), search them by name prefix, and the streams this browser
 * opened lately.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../lib/api.js';
import { localStore } from '../lib/browser-storage.js';
import type { Feed } from '../lib/feed.js';
import { forgetStreams, recentStreams } from '../lib/recent.js';
import { formatRoute } from '../lib/routes.js';
import { EMPTY_SCAN, scanPage, scanStart, type StreamScan, type StreamSummary } from '../lib/stream-index.js';
import { ErrorBanner, Field } from '../components/ui.js';

const FEED = 'application/vnd.svc.atom+json';
/** How many streams a first look or a "further back" gathers before it stops reading. */
const STREAMS_PER_LOOK = 20;
/** The most pages one look reads, so a log of one busy stream does not keep it reading. */
const PAGES_PER_LOOK = 10;

interface Search {
  prefix: string;
  includeSystem: boolean;
}

/** Reads older pages of the scan until it has `STREAMS_PER_LOOK` more streams, the log's start or the page limit. */
async function lookFurther(api: Api, scan: StreamScan, first: string, signal: AbortSignal): Promise<StreamScan> {
  const wanted = scan.streams.length + STREAMS_PER_LOOK;
  let current = scan;
  let next: string | undefined = scan === EMPTY_SCAN ? first : scan.next;
  for (let pages = 0; next !== undefined && pages < PAGES_PER_LOOK && current.streams.length < wanted; pages += 1) {
    current = scanPage(current, await api.json<Feed>(next, { accept: FEED, signal }));
    next = current.next;
  }
  return current;
}

function StreamTable({ name, streams }: { name: string; streams: StreamSummary[] }) {
  if (streams.length === 0) return <p class="muted">None found in what was read.</p>;
  return (
    <table data-name={name}>
      <thead><tr><th>Stream</th><th>Last event</th><th>Written</th></tr></thead>
      <tbody>
        {streams.map((summary) => (
          <tr key={summary.stream}>
            <td><a href={formatRoute({ page: 'stream', stream: summary.stream })}>{summary.stream}</a></td>
            <td>{summary.lastEventNumber}</td>
            <td>{summary.lastUpdated}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function StreamBrowser({ api }: { api: Api }) {
  const [search, setSearch] = useState<Search>({ prefix: '', includeSystem: false });
  const [typed, setTyped] = useState<Search>(search);
  const [scan, setScan] = useState<StreamScan>(EMPTY_SCAN);
  const [generation, setGeneration] = useState(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    const controller = new AbortController();
    setBusy(true);
    setError(undefined);
    const from = generation === 0 ? EMPTY_SCAN : scan;
    lookFurther(api, from, scanStart(search.prefix, search.includeSystem), controller.signal).then(
      (found) => { if (!controller.signal.aborted) { setScan(found); setBusy(false); } },
      (caught: unknown) => { if (!controller.signal.aborted) { setError(caught); setBusy(false); } },
    );
    return () => controller.abort();
    // `scan` is read, not watched: a look starts from where the last one ended.
  }, [api, search, generation]);
  const submit = (event: Event) => {
    event.preventDefault();
    setScan(EMPTY_SCAN);
    setGeneration(0);
    setSearch({ ...typed });
  };
  return (
    <div class="panel" data-name="stream-browser">
      <form class="inline" name="find-streams" onSubmit={submit}>
        <Field label="Name starts with"><input name="prefix" data-shortcut="search" value={typed.prefix} onInput={(event) => setTyped({ ...typed, prefix: event.currentTarget.value })} placeholder="orders-" /></Field>
        <label class="check"><input type="checkbox" name="include-system" checked={typed.includeSystem} onChange={(event) => setTyped({ ...typed, includeSystem: event.currentTarget.checked })} /> System streams too</label>
        <button type="submit">Find</button>
      </form>
      <ErrorBanner error={error} />
      <h2>Recently changed</h2>
      <StreamTable name="changed" streams={scan.streams} />
      <h2>Recently created</h2>
      <StreamTable name="created" streams={scan.created} />
      <p class="muted" data-name="scan-state">
        {busy ? 'Reading $all…' : scan.next === undefined ? 'Every event of the log was read.' : `${scan.streams.length} streams found in the newest events.`}
      </p>
      {scan.next !== undefined && !busy ? <button type="button" name="further-back" onClick={() => setGeneration((value) => value + 1)}>Look further back</button> : null}
    </div>
  );
}

export function StreamsPage({ api }: { api: Api }) {
  const [name, setName] = useState('');
  const [recent, setRecent] = useState(() => recentStreams(localStore()));
  const open = (event: Event) => {
    event.preventDefault();
    if (name !== '') location.hash = formatRoute({ page: 'stream', stream: name });
  };
  return (
    <section>
      <h1>Streams</h1>
      <form class="inline" onSubmit={open}>
        <Field label="Stream"><input name="stream" required value={name} onInput={(event) => setName(event.currentTarget.value)} placeholder="orders-42, $all, $settings" /></Field>
        <button type="submit">Open</button>
      </form>
      <StreamBrowser api={api} />
      <h2>Opened in this browser</h2>
      {recent.length === 0 ? <p>None yet.</p> : (
        <ul class="recent" data-name="recent">
          {recent.map((stream) => <li key={stream}><a href={formatRoute({ page: 'stream', stream })}>{stream}</a></li>)}
        </ul>
      )}
      {recent.length > 0 ? <button type="button" onClick={() => { forgetStreams(localStore()); setRecent([]); }}>Forget these</button> : null}
    </section>
  );
}
