/**
 * Projections: the list with status and progress; creating one in the editor; a projection's
 * commands, state and result per partition, source and config; and running a one-time query.
 * The list and a projection's status update by themselves; a faulted or lagging projection is
 * marked, with its reason.
 */
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../lib/api.js';
import { prettyJson } from '../lib/body.js';
import { jsonError } from '../lib/json-text.js';
import { COMMANDS, createPath, EXAMPLE_QUERY, isFinished, projectionHealth, projectionPath, type NewProjection, type ProjectionMode, type ProjectionSummary } from '../lib/projections.js';
import { formatRoute } from '../lib/routes.js';
import type { EditorProps } from '../components/editor.js';
import { ActionButton, ConfirmButton, ErrorBanner, Field, Notice, Pre, useLoad } from '../components/ui.js';
import { every, LiveIndicator, useLive } from '../components/live.js';

/** How often the list and a projection's status are read again. */
export const PROJECTIONS_REFRESH_MS = 2000;

/** The status, marked by how the projection is doing, and the reason when there is one. */
function StatusCell({ summary }: { summary: ProjectionSummary }) {
  const { health, reason } = projectionHealth(summary);
  return (
    <span class={`health health-${health}`} data-name="health" data-health={health}>
      <span class="badge">{summary.status ?? ''}</span>
      {reason ? <span class="reason">{reason}</span> : null}
    </span>
  );
}

/** The editor, fetched when first needed: it is not part of the console's first load. */
function LazyEditor(props: EditorProps) {
  const [Editor, setEditor] = useState<ComponentType<EditorProps>>();
  useEffect(() => {
    void import('../components/editor.js').then((module) => setEditor(() => module.Editor));
  }, []);
  if (Editor) return <Editor {...props} />;
  return <textarea name={props.name} value={props.value} onInput={(event) => props.onChange(event.currentTarget.value)} />;
}

function CreateProjection({ api, created }: { api: Api; created: () => void }) {
  const [projection, setProjection] = useState<NewProjection>({ name: '', mode: 'continuous', emit: false, enabled: true, trackEmittedStreams: false });
  const [source, setSource] = useState(EXAMPLE_QUERY);
  const [error, setError] = useState<unknown>();
  const [message, setMessage] = useState<string>();
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setMessage(undefined);
    try {
      await api.request(createPath(projection), { method: 'POST', body: source, headers: { 'content-type': 'application/javascript' } });
      setMessage(`Projection ${projection.name} created.`);
      created();
    } catch (caught) {
      setError(caught);
    }
  };
  const check = (name: 'emit' | 'enabled' | 'trackEmittedStreams', label: string) => (
    <label class="check"><input type="checkbox" name={name} checked={projection[name]} onChange={(event) => setProjection({ ...projection, [name]: event.currentTarget.checked })} /> {label}</label>
  );
  return (
    <form name="create-projection" onSubmit={(event) => void submit(event)}>
      <h2>New projection</h2>
      <Field label="Name"><input name="name" required value={projection.name} onInput={(event) => setProjection({ ...projection, name: event.currentTarget.value })} /></Field>
      <Field label="Mode">
        <select name="mode" value={projection.mode} onChange={(event) => setProjection({ ...projection, mode: event.currentTarget.value as ProjectionMode })}>
          <option value="continuous">Continuous</option><option value="onetime">One-time</option><option value="transient">Transient</option>
        </select>
      </Field>
      {check('enabled', 'Start it')}{check('emit', 'May emit events')}{check('trackEmittedStreams', 'Track emitted streams')}
      <LazyEditor name="source" value={source} onChange={setSource} />
      <button type="submit">Create projection</button>
      <ErrorBanner error={error} />
      <Notice text={message} />
    </form>
  );
}

export function ProjectionsPage({ api }: { api: Api }) {
  const list = useLive((signal) => api.json<{ projections: ProjectionSummary[] }>('/projections/any', { signal }), every(PROJECTIONS_REFRESH_MS), [api]);
  return (
    <section>
      <h1>Projections</h1>
      <LiveIndicator live={list} />
      <ErrorBanner error={list.error} />
      <button type="button" name="refresh" onClick={list.reload}>Refresh</button>
      <table data-name="projections">
        <thead><tr><th>Name</th><th>Mode</th><th>Status</th><th>Progress</th><th>Position</th><th>Events processed</th></tr></thead>
        <tbody>
          {(list.data?.projections ?? []).map((projection) => (
            <tr key={projection.name} class={`health-${projectionHealth(projection).health}`} data-name={`projection-${projection.name}`}>
              <td><a href={formatRoute({ page: 'projection', name: projection.name })}>{projection.name}</a></td>
              <td>{projection.mode ?? ''}</td><td><StatusCell summary={projection} /></td>
              <td>{projection.progress === undefined ? '' : `${projection.progress.toFixed(1)} %`}</td>
              <td>{projection.position ?? ''}</td><td>{String(projection.eventsProcessedAfterRestart ?? '')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <CreateProjection api={api} created={list.reload} />
    </section>
  );
}

/** JSON indented for reading; any other text as it came. */
function pretty(text: string): string {
  return prettyJson(text) ?? text;
}

/**
 * The state or result of one partition. A new `generation` (a command, a refresh) reads it again;
 * the partition typed and the one on show stay as they are.
 */
function StateView({ api, name, kind, generation }: { api: Api; name: string; kind: 'state' | 'result'; generation: number }) {
  const [partition, setPartition] = useState('');
  const [shown, setShown] = useState('');
  const value = useLoad(async (signal) => {
    const query = shown === '' ? '' : `?partition=${encodeURIComponent(shown)}`;
    const response = await api.request(projectionPath(name, `/${kind}${query}`), { signal });
    return pretty(await response.text());
  }, [api, name, kind, shown, generation]);
  return (
    <div class="panel" data-name={`${kind}-panel`}>
      <h2>{kind === 'state' ? 'State' : 'Result'}</h2>
      {/* Show reads again even for the partition on show: the state moves on as events come. */}
      <form class="inline" onSubmit={(event) => { event.preventDefault(); if (partition === shown) value.reload(); else setShown(partition); }}>
        <Field label="Partition"><input name={`${kind}-partition`} value={partition} onInput={(event) => setPartition(event.currentTarget.value)} /></Field>
        <button type="submit">Show</button>
      </form>
      <ErrorBanner error={value.error} />
      <Pre text={value.data === undefined || value.data === '' ? '(empty)' : value.data} label={kind} />
    </div>
  );
}

function SourceEditor({ api, name }: { api: Api; name: string }) {
  const source = useLoad((signal) => api.request(projectionPath(name, '/query'), { signal, accept: 'application/javascript' }).then((response) => response.text()), [api, name]);
  const [text, setText] = useState<string>();
  const [emit, setEmit] = useState(false);
  useEffect(() => setText(source.data), [source.data]);
  return (
    <div class="panel">
      <h2>Source</h2>
      <ErrorBanner error={source.error} />
      {text !== undefined ? <LazyEditor name="query" value={text} onChange={setText} /> : null}
      <label class="check"><input type="checkbox" name="query-emit" checked={emit} onChange={(event) => setEmit(event.currentTarget.checked)} /> May emit events</label>
      <ActionButton name="save-query" label="Save source" done="Source saved." action={() => api.request(projectionPath(name, `/query?type=JS&emit=${emit ? 'yes' : 'no'}`), { method: 'PUT', body: text ?? '', headers: { 'content-type': 'application/javascript' } })} />
    </div>
  );
}

function ConfigEditor({ api, name }: { api: Api; name: string }) {
  const config = useLoad((signal) => api.request(projectionPath(name, '/config'), { signal }).then((response) => response.text()), [api, name]);
  const [text, setText] = useState('');
  const [invalid, setInvalid] = useState<string>();
  useEffect(() => setText(config.data === undefined ? '' : pretty(config.data)), [config.data]);
  // The config goes to the node as it was typed, once it is known to be JSON.
  const save = async () => {
    const problem = jsonError(text);
    setInvalid(problem === undefined ? undefined : `The config is not valid JSON: ${problem}`);
    if (problem !== undefined) return;
    await api.sendText('PUT', projectionPath(name, '/config'), text);
    config.reload();
  };
  return (
    <div class="panel">
      <h2>Config</h2>
      <ErrorBanner error={config.error} />
      <textarea name="config" rows={12} value={text} onInput={(event) => setText(event.currentTarget.value)} />
      <ActionButton name="save-config" label="Save config (projection must be stopped)" done="Config saved." action={save} />
      {invalid ? <p class="error" role="alert">{invalid}</p> : null}
    </div>
  );
}

export function ProjectionPage({ api, name }: { api: Api; name: string }) {
  const status = useLive((signal) => api.json<ProjectionSummary>(projectionPath(name), { signal }), every(PROJECTIONS_REFRESH_MS), [api, name]);
  const [deleted, setDeleted] = useState<string>();
  const [generation, setGeneration] = useState(0);
  const command = (verb: (typeof COMMANDS)[number]) => async () => {
    await api.request(projectionPath(name, `/command/${verb}`), { method: 'POST' });
    status.reload();
    setGeneration((value) => value + 1);
  };
  return (
    <section>
      <h1>{`Projection ${name}`}</h1>
      <p class="links"><a href="#/projections">All projections</a></p>
      <LiveIndicator live={status} />
      <ErrorBanner error={status.error} />
      {status.data ? (
        <dl class="facts">
          <dt>Status</dt><dd data-name="projection-status"><StatusCell summary={status.data} /></dd>
          <dt>Mode</dt><dd>{status.data.mode ?? ''}</dd>
          <dt>Progress</dt><dd>{status.data.progress === undefined ? '' : `${status.data.progress.toFixed(1)} %`}</dd>
          <dt>Position</dt><dd>{status.data.position ?? ''}</dd>
        </dl>
      ) : null}
      <div class="buttons">
        <ActionButton name="start" label="Start" action={command('enable')} />
        <ActionButton name="stop" label="Stop" action={command('disable')} />
        <ActionButton name="abort" label="Abort" action={command('abort')} />
        <ConfirmButton name="reset" label="Reset" confirmLabel="Yes, reset it" question={`Reset the projection '${name}'? It starts again from the beginning.`} onConfirm={command('reset')} />
        <ConfirmButton name="delete-projection" label="Delete" confirmLabel="Yes, delete it" question={`Delete the projection '${name}'? It must be stopped first.`}
          onConfirm={async () => { await api.request(projectionPath(name, '?deleteStateStream=true&deleteCheckpointStream=true'), { method: 'DELETE' }); setDeleted('Projection deleted.'); }} />
        <button type="button" name="refresh" onClick={() => { status.reload(); setGeneration((value) => value + 1); }}>Refresh</button>
      </div>
      <Notice text={deleted} />
      <StateView api={api} name={name} kind="state" generation={generation} />
      <StateView api={api} name={name} kind="result" generation={generation} />
      <SourceEditor api={api} name={name} />
      <ConfigEditor api={api} name={name} />
    </section>
  );
}

const QUERY_POLL_MS = 1000;

/** Stops a query's transient projection and deletes it with its streams. */
async function removeQuery(api: Api, name: string): Promise<void> {
  await api.request(projectionPath(name, '/command/disable'), { method: 'POST' });
  await api.request(projectionPath(name, '?deleteStateStream=true&deleteCheckpointStream=true&deleteEmittedStreams=true'), { method: 'DELETE' });
}

export function QueryPage({ api }: { api: Api }) {
  const [source, setSource] = useState(EXAMPLE_QUERY);
  const [status, setStatus] = useState<string>();
  const [result, setResult] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [running, setRunning] = useState(false);
  const run = async (event: Event) => {
    event.preventDefault();
    setRunning(true);
    setError(undefined);
    setResult(undefined);
    let created: { name: string } | undefined;
    try {
      created = await api.json<{ name: string }>(createPath({ name: '', mode: 'transient', emit: false, enabled: true, trackEmittedStreams: false }), {
        method: 'POST', body: source, headers: { 'content-type': 'application/javascript' },
      });
      let summary = await api.json<ProjectionSummary>(projectionPath(created.name));
      while (!isFinished(summary.status) && (summary.progress ?? 0) < 100) {
        setStatus(summary.status);
        await new Promise((resolve) => setTimeout(resolve, QUERY_POLL_MS));
        summary = await api.json<ProjectionSummary>(projectionPath(created.name));
      }
      setStatus(summary.stateReason ? `${summary.status ?? ''}: ${summary.stateReason}` : summary.status);
      const text = await (await api.request(projectionPath(created.name, '/result'))).text();
      setResult(text === '' ? '(empty)' : pretty(text));
    } catch (caught) {
      setError(caught);
    } finally {
      // A query run is not a projection to keep: it leaves no entry in the list.
      if (created) await removeQuery(api, created.name).catch((caught: unknown) => setError(caught));
      setRunning(false);
    }
  };
  return (
    <section>
      <h1>One-time query</h1>
      <form name="query" onSubmit={(event) => void run(event)}>
        <LazyEditor name="query-source" value={source} onChange={setSource} />
        <button type="submit" disabled={running}>Run</button>
      </form>
      <ErrorBanner error={error} />
      {status ? <p data-name="query-status">{status}</p> : null}
      {result !== undefined ? <Pre text={result} label="result" /> : null}
    </section>
  );
}
