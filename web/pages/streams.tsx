/** Opening a stream by name, and the streams opened lately (remembered by this browser). */
import { useState } from 'preact/hooks';
import { localStore } from '../lib/browser-storage.js';
import { forgetStreams, recentStreams } from '../lib/recent.js';
import { formatRoute } from '../lib/routes.js';
import { Field } from '../components/ui.js';

export function StreamsPage() {
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
      <h2>Recently opened</h2>
      {recent.length === 0 ? <p>None yet.</p> : (
        <ul class="recent" data-name="recent">
          {recent.map((stream) => <li key={stream}><a href={formatRoute({ page: 'stream', stream })}>{stream}</a></li>)}
        </ul>
      )}
      {recent.length > 0 ? <button type="button" onClick={() => { forgetStreams(localStore()); setRecent([]); }}>Forget these</button> : null}
    </section>
  );
}
