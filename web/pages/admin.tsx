/** Node operations: merge the index files, reload the certificates, shut the node down. */
import type { Api } from '../lib/api.js';
import { ActionButton, ConfirmButton, Notice } from '../components/ui.js';
import { useState } from 'preact/hooks';

export function AdminPage({ api }: { api: Api }) {
  const [stopped, setStopped] = useState<string>();
  return (
    <section>
      <h1>Admin</h1>
      <div class="panel">
        <h2>Index</h2>
        <p>Merge every index file into one.</p>
        <ActionButton name="merge-indexes" label="Merge indexes" done="Index merge started." action={() => api.request('/admin/mergeindexes', { method: 'POST' })} />
      </div>
      <div class="panel">
        <h2>Certificates</h2>
        <p>Load the node's certificate, key and trusted roots again from their files.</p>
        <ActionButton name="reload-certificates" label="Reload certificates" done="Certificates reloaded." action={() => api.request('/admin/reloadconfig', { method: 'POST' })} />
      </div>
      <div class="panel">
        <h2>Scavenge</h2>
        <p><a href="#/scavenge">Start, stop and review scavenges.</a></p>
      </div>
      <div class="panel">
        <h2>Shut down</h2>
        <ConfirmButton name="shutdown" label="Shut down the node" confirmLabel="Yes, shut it down" question="Shut the node down? It stops serving until it is started again."
          onConfirm={async () => { await api.request('/admin/shutdown', { method: 'POST' }); setStopped('The node is shutting down.'); }} />
        <Notice text={stopped} />
      </div>
    </section>
  );
}
