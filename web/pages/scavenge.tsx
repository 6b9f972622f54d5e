/**
 * Scavenge: start one with options; the running one with its phase and progress, updating by
 * itself, and stopped after a confirmation; how the last one seen ended; the history kept in
 * `$scavenges`.
 */
import { useRef, useState } from 'preact/hooks';
import type { Api } from '../lib/api.js';
import type { Feed } from '../lib/feed.js';
import { formatBytes } from '../../src/common/human-units.js';
import { formatRoute } from '../lib/routes.js';
import { DEFAULT_SCAVENGE_OPTIONS, scavengeQuery, scavengeRecord, type ScavengeOptions } from '../lib/scavenge.js';
import { ConfirmButton, ErrorBanner, Field, Notice, useLoad } from '../components/ui.js';
import { every, LiveIndicator, useLive } from '../components/live.js';

export const SCAVENGE_REFRESH_MS = 1000;

/** `/admin/scavenge/current` and `/admin/scavenge/{id}`: a run in progress, or how it ended. */
interface Run {
  scavengeId: string;
  phase?: string;
  unit?: string;
  chunksDone?: number;
  chunksTotal?: number;
  spaceSaved?: number;
  startedAt?: string;
  stopRequested?: boolean;
  result?: string;
  error?: string | null;
  timeTaken?: string;
}

interface Observed {
  running: Run | undefined;
  /** The last run this page saw running, once it has ended. */
  finished: Run | undefined;
}

function Progress({ run }: { run: Run }) {
  const total = run.chunksTotal ?? 0;
  const done = run.chunksDone ?? 0;
  const percent = total > 0 ? Math.min(100, (done / total) * 100) : 0;
  return (
    <div class="progress-box" data-name="scavenge-progress">
      <p>{`Phase ${run.phase ?? '?'}: ${done} of ${total} ${run.unit ?? 'chunks'} (${percent.toFixed(0)} %), ${formatBytes(run.spaceSaved ?? 0)} reclaimed so far${run.stopRequested ? ', stopping' : ''}.`}</p>
      <progress max={100} value={percent} aria-label="Scavenge progress" />
    </div>
  );
}

function Finished({ run }: { run: Run }) {
  const outcome = run.result ?? 'Finished';
  return (
    <p class={`done done-${outcome.toLowerCase()}`} data-name="scavenge-done" role="status">
      {`Scavenge ${run.scavengeId} ended: ${outcome}`}
      {run.spaceSaved === undefined ? '' : `, ${formatBytes(run.spaceSaved)} reclaimed`}
      {run.timeTaken ? ` in ${run.timeTaken}` : ''}
      {run.error ? ` (${run.error})` : ''}.
    </p>
  );
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

function History({ api, generation }: { api: Api; generation: string }) {
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
  const seen = useRef<string>();
  const observed = useLive<Observed>(async (signal) => {
    const current = await api.json<Run>('/admin/scavenge/current', { signal });
    if (current.scavengeId !== '') {
      seen.current = current.scavengeId;
      return { running: current, finished: undefined };
    }
    if (seen.current === undefined) return { running: undefined, finished: undefined };
    const finished = await api.json<Run>(`/admin/scavenge/${encodeURIComponent(seen.current)}`, { signal });
    return { running: undefined, finished };
  }, every(SCAVENGE_REFRESH_MS), [api, generation]);
  const changed = () => setGeneration((value) => value + 1);
  const running = observed.data?.running;
  const finished = observed.data?.finished;
  // The history is read again when a run this page saw has ended.
  const historyGeneration = `${generation}:${finished?.scavengeId ?? ''}:${finished?.phase ?? ''}`;
  return (
    <section>
      <h1>Scavenge</h1>
      <LiveIndicator live={observed} />
      <ErrorBanner error={observed.error} />
      <p data-name="scavenge-current">{running ? `Running: ${running.scavengeId}` : 'No scavenge is running.'}</p>
      {running ? <Progress run={running} /> : null}
      {!running && finished ? <Finished run={finished} /> : null}
      <button type="button" onClick={changed}>Refresh</button>
      {running ? (
        <ConfirmButton name="stop-scavenge" label="Stop the scavenge" confirmLabel="Yes, stop it" question={`Stop the scavenge ${running.scavengeId}? It can be started again later.`}
          onConfirm={async () => { await api.request('/admin/scavenge/current', { method: 'DELETE' }); changed(); }} />
      ) : null}
      <StartForm api={api} started={changed} />
      <History api={api} generation={historyGeneration} />
    </section>
  );
}
