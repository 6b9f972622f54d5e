/** Scavenge: start one with options, stop the one running, and the history kept in `$scavenges`. */
import { useState } from 'preact/hooks';
import type { Api } from '../lib/api.js';
import type { Feed } from '../lib/feed.js';
import { formatBytes } from '../lib/series.js';
import { formatRoute } from '../lib/routes.js';
import { DEFAULT_SCAVENGE_OPTIONS, scavengeQuery, scavengeRecord, type ScavengeOptions } from '../lib/scavenge.js';
import { ConfirmButton, ErrorBanner, Field, Notice, useLoad } from '../components/ui.js';

interface Current {
  scavengeId: string;
  scavengeLink: string;
}

function StartForm({ api, started }: { api: Api; started: () => void }) {
  const [options, setOptions] = useState<ScavengeOptions>({ ...DEFAULT_SCAVENGE_OPTIONS });
  const [errors, setErrors] = useState<string[]>([]);
  const [error, setError] = useState<unknown>();
  const [message, setMessage] = useState<string>();
  const set = (name: Exclude<keyof ScavengeOptions, 'syncOnly'>) => (event: Event) => setOptions({ ...options, [name]: (event.currentTarget as HTMLInputElement).value });
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setMessage(undefined);
    const checked = scavengeQuery(options);
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors([]);
    try {
      const reply = await api.json<{ scavengeId: string }>(`/admin/scavenge?${checked.query}`, { method: 'POST' });
      setMessage(`Scavenge ${reply.scavengeId} started.`);
      started();
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <form name="scavenge" class="grid" onSubmit={(event) => void submit(event)}>
      <h2>Start a scavenge</h2>
      <Field label="Threads"><input name="threads" value={options.threads} onInput={set('threads')} /></Field>
      <Field label="Threshold (optional)"><input name="threshold" value={options.threshold} onInput={set('threshold')} /></Field>
      <Field label="Throttle percent (optional)"><input name="throttlePercent" value={options.throttlePercent} onInput={set('throttlePercent')} /></Field>
      <label class="check"><input type="checkbox" name="syncOnly" checked={options.syncOnly} onChange={(event) => setOptions({ ...options, syncOnly: event.currentTarget.checked })} /> Sync only</label>
      <button type="submit">Start scavenge</button>
      {errors.map((text) => <p key={text} class="error" role="alert">{text}</p>)}
      <ErrorBanner error={error} />
      <Notice text={message} />
    </form>
  );
}

function History({ api, generation }: { api: Api; generation: number }) {
  const feed = useLoad((signal) => api.json<Feed>('/streams/%24scavenges/head/backward/50?embed=body', { accept: 'application/vnd.svc.atom+json', signal }), [api, generation]);
  const records = (feed.data?.entries ?? []).map((entry) => scavengeRecord(entry)).filter((record) => record !== undefined);
  return (
    <div>
      <h2>History</h2>
      <ErrorBanner error={feed.error} />
      {records.length === 0 && !feed.error ? <p>No scavenge yet.</p> : null}
      <table data-name="scavenge-history">
        <thead><tr><th>Scavenge</th><th>Event</th><th>Time</th><th>Result</th><th>Space reclaimed</th><th>Time taken</th></tr></thead>
        <tbody>
          {records.map((record) => (
            <tr key={`${record.scavengeId}:${record.type}`}>
              <td><a href={formatRoute({ page: 'stream', stream: `$scavenges-${record.scavengeId}` })}>{record.scavengeId}</a></td>
              <td>{record.type}</td><td>{record.time}</td><td>{record.result ?? ''}{record.error ? ` (${record.error})` : ''}</td>
              <td>{record.spaceSaved === undefined ? '' : formatBytes(record.spaceSaved)}</td><td>{record.timeTaken ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ScavengePage({ api }: { api: Api }) {
  const [generation, setGeneration] = useState(0);
  const current = useLoad((signal) => api.json<Current>('/admin/scavenge/current', { signal }), [api, generation]);
  const changed = () => setGeneration((value) => value + 1);
  const running = current.data?.scavengeId;
  return (
    <section>
      <h1>Scavenge</h1>
      <ErrorBanner error={current.error} />
      <p data-name="scavenge-current">{running ? `Running: ${running}` : 'No scavenge is running.'}</p>
      <button type="button" onClick={changed}>Refresh</button>
      {running ? (
        <ConfirmButton name="stop-scavenge" label="Stop the scavenge" confirmLabel="Yes, stop it" question={`Stop the scavenge ${running}? It can be started again later.`}
          onConfirm={async () => { await api.request('/admin/scavenge/current', { method: 'DELETE' }); changed(); }} />
      ) : null}
      <StartForm api={api} started={changed} />
      <History api={api} generation={generation} />
    </section>
  );
}
