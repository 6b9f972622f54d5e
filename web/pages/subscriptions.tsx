/**
 * Persistent subscriptions: every group with its status and lag; a group's settings, created,
 * updated or deleted; its parked messages, and replaying them.
 */
import { useState } from 'preact/hooks';
import type { Api } from '../lib/api.js';
import { formatRoute } from '../lib/routes.js';
import { DEFAULT_SETTINGS, NUMERIC_SETTINGS, settingsErrors, settingsOf, STRATEGIES, type SubscriptionSettings } from '../lib/subscription-settings.js';
import { groupPath, lagOf, parkedStream, type SubscriptionSummary } from '../lib/subscriptions.js';
import { ActionButton, ConfirmButton, ErrorBanner, Field, Notice, Pre, useLoad } from '../components/ui.js';

function SettingsFields({ settings, change }: { settings: SubscriptionSettings; change: (settings: SubscriptionSettings) => void }) {
  return (
    <fieldset class="grid"><legend>Settings</legend>
      {NUMERIC_SETTINGS.map((name) => (
        <Field key={name} label={name}>
          <input name={name} inputMode="numeric" value={String(settings[name])} onInput={(event) => change({ ...settings, [name]: Number(event.currentTarget.value) })} />
        </Field>
      ))}
      <Field label="namedConsumerStrategy">
        <select name="namedConsumerStrategy" value={settings.namedConsumerStrategy} onChange={(event) => change({ ...settings, namedConsumerStrategy: event.currentTarget.value })}>
          {STRATEGIES.map((strategy) => <option key={strategy} value={strategy}>{strategy}</option>)}
        </select>
      </Field>
      <label class="check"><input type="checkbox" name="resolveLinktos" checked={settings.resolveLinktos} onChange={(event) => change({ ...settings, resolveLinktos: event.currentTarget.checked })} /> Resolve links</label>
      <label class="check"><input type="checkbox" name="extraStatistics" checked={settings.extraStatistics} onChange={(event) => change({ ...settings, extraStatistics: event.currentTarget.checked })} /> Extra statistics</label>
    </fieldset>
  );
}

function useSubmit(run: () => Promise<string>) {
  const [errors, setErrors] = useState<string[]>([]);
  const [error, setError] = useState<unknown>();
  const [message, setMessage] = useState<string>();
  const submit = (check: () => string[]) => async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setMessage(undefined);
    const found = check();
    setErrors(found);
    if (found.length > 0) return;
    try {
      setMessage(await run());
    } catch (caught) {
      setError(caught);
    }
  };
  const feedback = <>{errors.map((text) => <p key={text} class="error" role="alert">{text}</p>)}<ErrorBanner error={error} /><Notice text={message} /></>;
  return { submit, feedback };
}

function CreateGroup({ api, created }: { api: Api; created: () => void }) {
  const [stream, setStream] = useState('');
  const [group, setGroup] = useState('');
  const [settings, setSettings] = useState<SubscriptionSettings>({ ...DEFAULT_SETTINGS });
  const { submit, feedback } = useSubmit(async () => {
    await api.send('PUT', groupPath(stream, group), settings);
    created();
    return `Group ${group} on ${stream} created.`;
  });
  const check = () => [...(stream === '' ? ['the stream is empty'] : []), ...(group === '' ? ['the group is empty'] : []), ...settingsErrors(settings)];
  return (
    <form name="create-subscription" onSubmit={(event) => void submit(check)(event)}>
      <h2>New subscription group</h2>
      <Field label="Stream"><input name="stream" value={stream} onInput={(event) => setStream(event.currentTarget.value)} /></Field>
      <Field label="Group"><input name="group" value={group} onInput={(event) => setGroup(event.currentTarget.value)} /></Field>
      <SettingsFields settings={settings} change={setSettings} />
      <button type="submit">Create group</button>
      {feedback}
    </form>
  );
}

export function SubscriptionsPage({ api }: { api: Api }) {
  const list = useLoad((signal) => api.json<SubscriptionSummary[]>('/subscriptions', { signal }), [api]);
  return (
    <section>
      <h1>Persistent subscriptions</h1>
      <ErrorBanner error={list.error} />
      <button type="button" name="refresh" onClick={list.reload}>Refresh</button>
      <table data-name="subscriptions">
        <thead><tr><th>Stream</th><th>Group</th><th>Status</th><th>Lag</th><th>Processed</th><th>Items/s</th><th>Connections</th><th>In flight</th></tr></thead>
        <tbody>
          {(list.data ?? []).map((summary) => (
            <tr key={`${summary.eventStreamId}/${summary.groupName}`} data-name={`group-${summary.eventStreamId}/${summary.groupName}`}>
              <td>{summary.eventStreamId}</td>
              <td><a href={formatRoute({ page: 'subscription', stream: summary.eventStreamId, group: summary.groupName })}>{summary.groupName}</a></td>
              <td data-name="status">{summary.status}</td><td data-name="lag">{String(lagOf(summary) ?? '')}</td>
              <td data-name="processed">{String(summary.totalItemsProcessed ?? '')}</td>
              <td>{String(summary.averageItemsPerSecond ?? '')}</td><td>{String(summary.connectionCount ?? '')}</td><td>{String(summary.totalInFlightMessages ?? '')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <CreateGroup api={api} created={list.reload} />
    </section>
  );
}

interface GroupInfo extends SubscriptionSummary {
  config?: Record<string, unknown>;
  connections?: unknown[];
}

function UpdateGroup({ api, stream, group, info, updated }: { api: Api; stream: string; group: string; info: GroupInfo; updated: () => void }) {
  const [settings, setSettings] = useState(() => settingsOf(info.config));
  const { submit, feedback } = useSubmit(async () => {
    await api.send('POST', groupPath(stream, group), settings);
    updated();
    return 'Settings saved.';
  });
  return (
    <form name="update-subscription" onSubmit={(event) => void submit(() => settingsErrors(settings))(event)}>
      <SettingsFields settings={settings} change={setSettings} />
      <button type="submit">Save settings</button>
      {feedback}
    </form>
  );
}

export function SubscriptionPage({ api, stream, group }: { api: Api; stream: string; group: string }) {
  const info = useLoad((signal) => api.json<GroupInfo>(groupPath(stream, group, '/info'), { signal }), [api, stream, group]);
  const [deleted, setDeleted] = useState<string>();
  const parked = parkedStream(stream, group);
  return (
    <section>
      <h1>{`${group} on ${stream}`}</h1>
      <p class="links"><a href="#/subscriptions">All subscriptions</a> <a data-name="parked-messages" href={formatRoute({ page: 'stream', stream: parked })}>Parked messages</a></p>
      <ErrorBanner error={info.error} />
      <button type="button" name="refresh" onClick={info.reload}>Refresh</button>
      {info.data ? (
        <>
          <dl class="facts">
            <dt>Status</dt><dd data-name="status">{info.data.status}</dd>
            <dt>Lag</dt><dd data-name="lag">{String(lagOf(info.data) ?? '')}</dd>
            <dt>Parked</dt><dd data-name="parked-count">{String(info.data.parkedMessageCount ?? '')}</dd>
            <dt>In flight</dt><dd>{String(info.data.totalInFlightMessages ?? '')}</dd>
          </dl>
          <h2>Connections</h2>
          <Pre text={JSON.stringify(info.data.connections ?? [], null, 2)} />
          <h2>Settings</h2>
          <UpdateGroup api={api} stream={stream} group={group} info={info.data} updated={info.reload} />
        </>
      ) : null}
      <div class="buttons">
        <ActionButton name="replay-parked" label="Replay parked messages" done="Replaying parked messages." action={() => api.request(groupPath(stream, group, '/replayParked'), { method: 'POST' })} />
        <ConfirmButton name="delete-subscription" label="Delete group" confirmLabel="Yes, delete the group" question={`Delete the subscription group '${group}' on the stream '${stream}'?`}
          onConfirm={async () => { await api.request(groupPath(stream, group), { method: 'DELETE' }); setDeleted('Group deleted.'); }} />
      </div>
      <Notice text={deleted} />
    </section>
  );
}
