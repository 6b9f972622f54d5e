/** Appending one event to a stream: type, id (a fresh one offered) and a JSON body. */
import { useState } from 'preact/hooks';
import type { Api } from '../lib/api.js';
import { randomUuid } from '../lib/uuid.js';
import { appendBody, type AppendInput } from '../lib/append.js';
import { ErrorBanner, Field, Notice } from '../components/ui.js';

export function AppendForm({ api, stream, onAppended }: { api: Api; stream: string; onAppended: () => void }) {
  const [input, setInput] = useState<AppendInput>(() => ({ eventType: '', eventId: randomUuid(), data: '{\n  \n}', metadata: '', expectedVersion: '' }));
  const [errors, setErrors] = useState<string[]>([]);
  const [error, setError] = useState<unknown>();
  const [message, setMessage] = useState<string>();
  const set = (name: keyof AppendInput) => (event: Event) => setInput({ ...input, [name]: (event.currentTarget as HTMLInputElement).value });
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setMessage(undefined);
    const checked = appendBody(input);
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors([]);
    const headers: Record<string, string> = { 'content-type': 'application/vnd.svc.events+json' };
    if (input.expectedVersion.trim() !== '') headers['svc-expectedversion'] = input.expectedVersion.trim();
    try {
      const response = await api.request(`/streams/${encodeURIComponent(stream)}`, { method: 'POST', body: checked.body, headers });
      setMessage(`Appended as event ${response.headers.get('location')?.split('/').pop() ?? ''}.`);
      setInput({ ...input, eventId: randomUuid() });
      onAppended();
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <form class="append" name="append" onSubmit={(event) => void submit(event)}>
      <h2>Append an event</h2>
      <Field label="Event type"><input name="eventType" required value={input.eventType} onInput={set('eventType')} /></Field>
      <Field label="Event id">
        <span class="row"><input name="eventId" value={input.eventId} onInput={set('eventId')} /><button type="button" onClick={() => setInput({ ...input, eventId: randomUuid() })}>New id</button></span>
      </Field>
      <Field label="Data (JSON)"><textarea name="data" rows={6} value={input.data} onInput={set('data')} /></Field>
      <Field label="Metadata (JSON, optional)"><textarea name="metadata" rows={2} value={input.metadata} onInput={set('metadata')} /></Field>
      <Field label="Expected version (optional)"><input name="expectedVersion" value={input.expectedVersion} onInput={set('expectedVersion')} placeholder="-2" /></Field>
      <button type="submit">Append</button>
      {errors.map((text) => <p key={text} class="error" role="alert">{text}</p>)}
      <ErrorBanner error={error} />
      <Notice text={message} />
    </form>
  );
}
