/**
 * One event: its facts, its data as JSON, text or hex (from the stored bytes), its metadata,
 * and for a `$>` link the event it points at.
 */
import { useState } from 'preact/hooks';
import type { Api } from '../lib/api.js';
import { defaultView, prettyJson, renderBody, type BodyView } from '../lib/body.js';
import { linkTarget, LINK_EVENT_TYPE, viaLink, type FeedEntry } from '../lib/feed.js';
import { formatRoute } from '../lib/routes.js';
import { ErrorBanner, Pre, useLoad } from '../components/ui.js';

const ENTRY = 'application/vnd.svc.atom+json';
const VIEWS: BodyView[] = ['json', 'text', 'hex'];

interface Loaded {
  entry: FeedEntry;
  bytes: Uint8Array;
}

async function loadEvent(api: Api, stream: string, eventNumber: string, signal: AbortSignal): Promise<Loaded> {
  const path = `/streams/${encodeURIComponent(stream)}/${encodeURIComponent(eventNumber)}`;
  // tryharder: a link's data (`n@stream`) and text metadata are not JSON, and body leaves them out.
  const entry = await api.json<FeedEntry>(`${path}?embed=tryharder`, { accept: ENTRY, signal });
  const response = await api.request(path, { accept: 'application/octet-stream', signal });
  return { entry, bytes: new Uint8Array(await response.arrayBuffer()) };
}

function Body({ bytes }: { bytes: Uint8Array }) {
  const [view, setView] = useState<BodyView>(() => defaultView(bytes));
  return (
    <div>
      <div class="tabs" role="tablist">
        {VIEWS.map((name) => (
          <button key={name} type="button" role="tab" name={`view-${name}`} aria-selected={name === view} onClick={() => setView(name)}>{name.toUpperCase()}</button>
        ))}
      </div>
      <Pre text={bytes.length === 0 ? '(empty)' : renderBody(bytes, view)} label="data" />
    </div>
  );
}

export function EventPage({ api, stream, eventNumber }: { api: Api; stream: string; eventNumber: string }) {
  const loaded = useLoad((signal) => loadEvent(api, stream, eventNumber, signal), [api, stream, eventNumber]);
  const entry = loaded.data?.entry;
  const target = entry?.summary === LINK_EVENT_TYPE || entry?.eventType === LINK_EVENT_TYPE ? linkTarget(entry.data) : undefined;
  const via = entry ? viaLink(entry) : undefined;
  const metadata = entry?.metaData ? prettyJson(entry.metaData) ?? entry.metaData : undefined;
  return (
    <section>
      <h1>{`${eventNumber}@${stream}`}</h1>
      <p class="links"><a href={formatRoute({ page: 'stream', stream })}>{`Back to ${stream}`}</a></p>
      <ErrorBanner error={loaded.error} />
      {entry?.isRedacted ? <p><span class="badge badge-redacted" data-name="redacted">Redacted</span> Its data was removed by redaction; type, metadata and time stay.</p> : null}
      {entry ? (
        <dl class="facts">
          <dt>Type</dt><dd>{entry.eventType ?? entry.summary}</dd>
          <dt>Number</dt><dd>{String(entry.eventNumber ?? eventNumber)}</dd>
          <dt>Stream</dt><dd>{entry.streamId ?? stream}</dd>
          <dt>Time</dt><dd>{entry.updated}</dd>
          <dt>Id</dt><dd>{entry.eventId ?? '–'}</dd>
          <dt>JSON</dt><dd>{String(entry.isJson ?? false)}</dd>
        </dl>
      ) : null}
      {target ? <p><a class="follow" href={formatRoute({ page: 'event', ...target })}>{`Follow link to ${target.eventNumber}@${target.stream}`}</a></p> : null}
      {via ? <p>{'Read through the link '}<a href={formatRoute({ page: 'event', ...via })}>{`${via.eventNumber}@${via.stream}`}</a></p> : null}
      {loaded.data ? <><h2>Data</h2><Body bytes={loaded.data.bytes} /></> : null}
      {metadata ? <><h2>Metadata</h2><Pre text={metadata} label="metadata" /></> : null}
      {entry?.linkMetaData ? <><h2>Link metadata</h2><Pre text={entry.linkMetaData} label="link metadata" /></> : null}
    </section>
  );
}
