/** A stream's metadata: maxAge, maxCount, tb, cacheControl and the ACL, validated before saving. */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Api } from '../lib/api.js';
import { ACL_KEYS, formOf, metadataOf, NUMERIC_KEYS, type MetadataForm } from '../lib/metadata.js';
import { formatRoute } from '../lib/routes.js';
import { randomUuid } from '../lib/uuid.js';
import { ErrorBanner, Field, Notice, useLoad } from '../components/ui.js';

const LABELS: Record<string, string> = {
  $maxAge: 'Max age (seconds)', $maxCount: 'Max count (events)', $tb: 'Truncate before (event number)', $cacheControl: 'Cache control (seconds)',
  $r: 'Read roles', $w: 'Write roles', $d: 'Delete roles', $mr: 'Metadata read roles', $mw: 'Metadata write roles',
};

async function loadMetadata(api: Api, stream: string, signal: AbortSignal): Promise<string> {
  try {
    const response = await api.request(`/streams/${encodeURIComponent(stream)}/metadata`, { accept: 'application/json', signal });
    return await response.text();
  } catch (error) {
    // A stream with no events yet has no metadata either; saving some is how to start one.
    if (error instanceof ApiError && error.status === 404) return '';
    throw error;
  }
}

export function MetadataPage({ api, stream }: { api: Api; stream: string }) {
  const loaded = useLoad((signal) => loadMetadata(api, stream, signal), [api, stream]);
  const [form, setForm] = useState<MetadataForm>();
  const [errors, setErrors] = useState<string[]>([]);
  const [error, setError] = useState<unknown>();
  const [message, setMessage] = useState<string>();
  useEffect(() => {
    if (loaded.data === undefined) return;
    try {
      setForm(formOf(loaded.data));
    } catch (caught) {
      setError(caught);
    }
  }, [loaded.data]);
  const save = async (event: Event) => {
    event.preventDefault();
    if (!form) return;
    setMessage(undefined);
    setError(undefined);
    const checked = metadataOf(form);
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors([]);
    try {
      await api.request(`/streams/${encodeURIComponent(stream)}/metadata`, {
        method: 'POST', body: checked.json, headers: { 'content-type': 'application/json', 'svc-eventid': randomUuid() },
      });
      setMessage('Metadata saved.');
      loaded.reload();
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <section>
      <h1>{`Metadata of ${stream}`}</h1>
      <p class="links"><a href={formatRoute({ page: 'stream', stream })}>{`Back to ${stream}`}</a></p>
      <ErrorBanner error={loaded.error ?? error} />
      {loaded.data !== undefined ? <details><summary>As stored</summary><pre class="body" data-name="stored-metadata">{loaded.data || '(none)'}</pre></details> : null}
      {form ? (
        <form name="metadata" onSubmit={(event) => void save(event)}>
          <fieldset class="grid"><legend>Retention and caching</legend>
            {NUMERIC_KEYS.map((key) => (
              <Field key={key} label={LABELS[key]}>
                <input name={key} inputMode="numeric" value={form.numbers[key]} onInput={(event) => setForm({ ...form, numbers: { ...form.numbers, [key]: event.currentTarget.value } })} />
              </Field>
            ))}
          </fieldset>
          <fieldset class="grid"><legend>Access (roles or users, separated by commas)</legend>
            {ACL_KEYS.map((key) => (
              <Field key={key} label={LABELS[key]}>
                <input name={key} value={form.acl[key]} onInput={(event) => setForm({ ...form, acl: { ...form.acl, [key]: event.currentTarget.value } })} />
              </Field>
            ))}
          </fieldset>
          <Field label="Other properties (JSON object)"><textarea name="custom" rows={4} value={form.custom} onInput={(event) => setForm({ ...form, custom: event.currentTarget.value })} /></Field>
          <button type="submit">Save metadata</button>
          {errors.map((text) => <p key={text} class="error" role="alert">{text}</p>)}
          <Notice text={message} />
        </form>
      ) : null}
    </section>
  );
}
