/**
 * Persistent subscriptions: every group with its status, lag, messages in flight and parked,
 * updating by themselves; a group's settings, created, updated or deleted (for operators, as the
 * node allows); its parked messages listed, and replayed after a confirmation.
 */
import { useState } from 'preact/hooks';
import { ApiError, type Api } from '../lib/api.js';
import { prettyJson } from '../lib/body.js';
import { entryReference, type Feed } from '../lib/feed.js';
import { FEED } from '../lib/long-poll.js';
import type { Rights } from '../lib/rights.js';
import { formatRoute } from '../lib/routes.js';
import { DEFAULT_SETTINGS, NUMERIC_SETTINGS, settingsErrors, settingsOf, STRATEGIES, type SubscriptionSettings } from '../lib/subscription-settings.js';
import { groupPath, lagOf, parkedStream, type SubscriptionSummary } from '../lib/subscriptions.js';
import { ConfirmButton, ErrorBanner, Field, Notice, Pre } from '../components/ui.js';
import { every, LiveIndicator, useLive } from '../components/live.js';

/** How often the list, a group's figures and its parked messages are read again. */
export const SUBSCRIPTIONS_REFRESH_MS = 2000;
const PARKED_SHOWN_MAX = 20;

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

export function SubscriptionsPage({ api, rights }: { api: Api; rights: Rights }) {
  const list = useLive(async (signal) => {
    const groups = await api.json<SubscriptionSummary[]>('/subscriptions', { signal });
    // The list's documents have no parked count (the wire format); the node's statistics have it per group.
    const counts = await api.json<Record<string, { parked: number }>>('/stats/svc/subscriptions', { signal }).catch((): Record<string, { parked: number }> => ({}));
    return groups.map((group) => ({ ...group, parkedMessageCount: counts[`${group.eventStreamId}::${group.groupName}`]?.parked }));
  }, every(SUBSCRIPTIONS_REFRESH_MS), [api]);
  return (
    <section>
      <h1>Persistent subscriptions</h1>
      <LiveIndicator live={list} />
      <ErrorBanner error={list.error} />
      <button type="button" name="refresh" onClick={list.reload}>Refresh</button>
      <table data-name="subscriptions">
        <thead><tr><th>Stream</th><th>Group</th><th>Status</th><th>Lag</th><th>Processed</th><th>Items/s</th><th>Connections</th><th>In flight</th><th>Parked</th></tr></thead>
        <tbody>
          {(list.data ?? []).map((summary) => (
            <tr key={`${summary.eventStreamId}/${summary.groupName}`} data-name={`group-${summary.eventStreamId}/${summary.groupName}`}>
              <td>{summary.eventStreamId}</td>
              <td><a href={formatRoute({ page: 'subscription', stream: summary.eventStreamId, group: summary.groupName })}>{summary.groupName}</a></td>
              <td data-name="status">{summary.status}</td><td data-name="lag">{String(lagOf(summary) ?? '')}</td>
              <td data-name="processed">{String(summary.totalItemsProcessed ?? '')}</td>
              <td>{String(summary.averageItemsPerSecond ?? '')}</td><td>{String(summary.connectionCount ?? '')}</td><td data-name="in-flight">{String(summary.totalInFlightMessages ?? '')}</td>
              <td data-name="parked">{String(summary.parkedMessageCount ?? '')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {rights.operator ? <CreateGroup api={api} created={list.reload} /> : null}
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

/** The parked messages, newest first, each with a link to the event it parks; empty when none. */
function ParkedMessages({ api, stream, group, count }: { api: Api; stream: string; group: string; count: number | undefined }) {
  const path = `/subscriptions/viewparkedmessages/${encodeURIComponent(stream)}/${encodeURIComponent(group)}/head/backward/${PARKED_SHOWN_MAX}?embed=tryharder`;
  // Read again when the count changes: a message parked or replayed.
  const parked = useLive(async (signal) => {
    try {
      return await api.json<Feed>(path, { accept: FEED, signal });
    } catch (error) {
      // An empty parked stream does not exist yet.
      if (error instanceof ApiError && error.status === 404) return { title: '', links: [], entries: [] };
      throw error;
    }
  }, every(SUBSCRIPTIONS_REFRESH_MS), [api, path, count]);
  const entries = parked.data?.entries ?? [];
  return (
    <div class="panel" data-name="parked">
      <h2>Parked messages</h2>
      {parked.error instanceof ApiError && parked.error.status === 401
        ? <p class="muted">The parked messages are in a system stream; only users who may read it (by default $admins) see them.</p>
        : <ErrorBanner error={parked.error} />}
      {entries.length === 0 && !parked.error ? <p class="muted">No message is parked.</p> : null}
      {entries.length > 0 ? (
        <table>
          <thead><tr><th>Event</th><th>Type</th><th>Time</th><th>Data</th></tr></thead>
          <tbody data-name="parked-list">
            {entries.map((entry) => {
              const reference = entryReference(entry);
              const data = entry.data === undefined || entry.data === null ? '' : prettyJson(entry.data) ?? entry.data;
              return (
                <tr key={entry.id}>
                  <td>{reference ? <a href={formatRoute({ page: 'event', ...reference })}>{entry.title}</a> : entry.title}</td>
                  <td>{entry.eventType ?? entry.summary}</td><td>{entry.updated}</td><td><pre class="body short">{data}</pre></td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      {count !== undefined && count > entries.length && entries.length > 0 ? <p class="muted">{`The newest ${entries.length} of ${count}.`}</p> : null}
    </div>
  );
}

export function SubscriptionPage({ api, stream, group, rights }: { api: Api; stream: string; group: string; rights: Rights }) {
  const info = useLive((signal) => api.json<GroupInfo>(groupPath(stream, group, '/info'), { signal }), every(SUBSCRIPTIONS_REFRESH_MS), [api, stream, group]);
  const [deleted, setDeleted] = useState<string>();
  const [replayed, setReplayed] = useState<string>();
  const parked = parkedStream(stream, group);
  const parkedCount = info.data?.parkedMessageCount;
  return (
    <section>
      <h1>{`${group} on ${stream}`}</h1>
      <p class="links"><a href="#/subscriptions">All subscriptions</a> <a data-name="parked-messages" href={formatRoute({ page: 'stream', stream: parked })}>Parked stream</a></p>
      <LiveIndicator live={info} />
      <ErrorBanner error={info.error} />
      <button type="button" name="refresh" onClick={info.reload}>Refresh</button>
      {info.data ? (
        <>
          <dl class="facts">
            <dt>Status</dt><dd data-name="status">{info.data.status}</dd>
            <dt>Lag</dt><dd data-name="lag">{String(lagOf(info.data) ?? '')}</dd>
            <dt>Parked</dt><dd data-name="parked-count">{String(parkedCount ?? '')}</dd>
            <dt>In flight</dt><dd data-name="in-flight">{String(info.data.totalInFlightMessages ?? '')}</dd>
          </dl>
          <div class="buttons">
            {rights.operator ? (
              <ConfirmButton name="replay-parked" label="Replay parked messages" confirmLabel="Yes, replay them"
                question={`Replay the ${String(parkedCount ?? 0)} parked messages of '${group}'? They are delivered to the group's consumers again.`}
                onConfirm={async () => { await api.request(groupPath(stream, group, '/replayParked'), { method: 'POST' }); setReplayed('Replaying parked messages.'); info.reload(); }} />
            ) : null}
          </div>
          <Notice text={replayed} />
          <ParkedMessages api={api} stream={stream} group={group} count={parkedCount} />
          <h2>Connections</h2>
          <Pre text={JSON.stringify(info.data.connections ?? [], null, 2)} />
          {rights.operator ? (
            <>
              <h2>Settings</h2>
              <UpdateGroup api={api} stream={stream} group={group} info={info.data} updated={info.reload} />
            </>
          ) : null}
        </>
      ) : null}
      {rights.operator ? (
        <div class="buttons">
          <ConfirmButton name="delete-subscription" label="Delete group" confirmLabel="Yes, delete the group" question={`Delete the subscription group '${group}' on the stream '${stream}'?`}
            onConfirm={async () => { await api.request(groupPath(stream, group), { method: 'DELETE' }); setDeleted('Group deleted.'); }} />
        </div>
      ) : null}
      <Notice text={deleted} />
    </section>
  );
}
