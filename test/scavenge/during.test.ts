// What a scavenge must not disturb, and what it must keep true: appends, reads and long polls go
// on during a run; a backup is refused while the node's scavenge is not Done and one taken after
// it restores and verifies; a node killed during a run records it Failed at its next start and
// resumes it on the next request.
import { join } from 'node:path';
import t from 'tap';
import { Engine } from '../../src/storage/engine.js';
import { adminFetch } from '../helpers/auth.js';
import { runJson, dataArgs } from '../helpers/backup.js';
import { startServer } from '../helpers/cli.js';
import { tempDirectory } from '../helpers/engine.js';
import {
  appendJson, call, completion, fillRemovable, Gate, gatedScavenger, startScavenge, startScavengeNode, streamEvents,
} from '../helpers/scavenge-node.js';
import { SCAVENGE_POINTS_STREAM } from '../../src/daemon/scavenge/scavenge-points.js';

async function runningId(url: string): Promise<string> {
  return (await call(url, 'GET', '/admin/scavenge/current')).body.scavengeId as string;
}

async function waitRunning(url: string): Promise<string> {
  for (let attempt = 0; attempt < 400; attempt++) {
    const id = await runningId(url);
    if (id !== '') return id;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no scavenge came to run');
}

t.test('appends, reads and long polls keep working during a scavenge', async (t) => {
  const node = await startScavengeNode(t);
  await fillRemovable(node.url, 1500, 100);
  // Throttled to 1%: the run rests most of the time, and works in between.
  const scavengeId = await startScavenge(node.url, '?throttlePercent=1&threshold=-1');
  t.equal(await runningId(node.url), scavengeId, 'the scavenge runs');

  const poll = adminFetch(`${node.url}/streams/live/0/forward/20`, { headers: { accept: 'application/vnd.svc.atom+json', 'svc-longpoll': '30' } });
  await appendJson(node.url, 'kept', 20);
  await appendJson(node.url, 'live', 1);
  const polled = await poll;
  t.equal(polled.status, 200, 'the long poll answers');
  t.equal(((await polled.json()) as { entries: unknown[] }).entries.length, 1, 'with the event appended during the run');
  const kept = await call(node.url, 'GET', '/streams/kept/0/forward/200', { headers: { accept: 'application/vnd.svc.atom+json' } });
  t.equal(kept.body.entries.length, 120, 'reads see every event of a kept stream');
  t.equal(await runningId(node.url), scavengeId, 'all of that happened while the scavenge ran');

  await call(node.url, 'DELETE', '/admin/scavenge/current');
  const resumed = await startScavenge(node.url);
  t.equal((await completion(node.url, resumed)).result, 'Success');
  const after = await call(node.url, 'GET', '/streams/kept/0/forward/200', { headers: { accept: 'application/vnd.svc.atom+json' } });
  t.equal(after.body.entries.length, 120, 'and after it');
  const doomed = await call(node.url, 'GET', '/streams/doomed/0/forward/2000', { headers: { accept: 'application/vnd.svc.atom+json' } });
  t.equal(doomed.body.entries.length, 10, '$maxCount: the last 10 remain');
});

t.test('a backup is refused while the scavenge is not Done; one taken after it restores and verifies', async (t) => {
  const gate = new Gate();
  let gated = true;
  const node = await startScavengeNode(t, { openScavenger: gatedScavenger(() => (gated ? gate : undefined)) });
  await fillRemovable(node.url);
  const stopped = await startScavenge(node.url);
  // The run is held at its start; stopping it leaves the state file at its first stage.
  gate.release();
  await call(node.url, 'DELETE', `/admin/scavenge/${stopped}`);
  gated = false;
  const destination = join(node.directory, 'backup');
  const refused = await runJson(['backup', destination, ...dataArgs(node.directory)]);
  t.equal(refused.code, 7, 'exit 7: a scavenge is under way (stopped, to be resumed)');
  t.equal(refused.json.error?.code, 'SVCDB_ERR_BACKUP_SCAVENGE_RUNNING');

  const resumed = await startScavenge(node.url);
  t.equal((await completion(node.url, resumed)).result, 'Success');
  const taken = await runJson(['backup', destination, ...dataArgs(node.directory)]);
  t.equal(taken.code, 0, `a backup after the scavenge ${taken.exit.stdout}`);
  t.equal((await runJson(['backup', 'verify', destination])).code, 0, 'it verifies');
  const restoredDirectory = tempDirectory(t);
  t.equal((await runJson(['restore', destination, ...dataArgs(restoredDirectory)])).code, 0, 'it restores');
  const restored = await Engine.open({ dbPath: join(restoredDirectory, 'db'), indexPath: join(restoredDirectory, 'index'), chunkSizeBytes: 65536 });
  t.teardown(() => restored.close());
  t.equal(restored.readStreamForward('kept', 0, 1000).events.length, 100, 'the kept stream is whole');
  t.equal(restored.readStreamForward('doomed', 0, 1000).events.length, 10, 'the scavenged stream has what it kept');
  t.equal(streamEvents(restored, SCAVENGE_POINTS_STREAM).length, 1, 'and the scavenge point');
});

t.test('a node killed during a scavenge records it Failed at its next start and resumes it on the next request', async (t) => {
  const directory = tempDirectory(t);
  const dbPath = join(directory, 'db');
  const args = ['--chunk-size', '65536'];
  const first = await startServer(t, { dbPath, args });
  await fillRemovable(first.url, 1500, 100);
  const killed = await startScavenge(first.url, '?throttlePercent=1&threshold=-1');
  t.equal(await waitRunning(first.url), killed);
  await first.process.stop('SIGKILL');

  const second = await startServer(t, { dbPath, args });
  const recorded = await call(second.url, 'GET', `/admin/scavenge/${killed}`);
  t.match(recorded.body, { scavengeId: killed, phase: 'Completed', result: 'Failed', error: /node stopped/ }, 'recorded Failed');
  const resumed = await startScavenge(second.url);
  t.equal((await completion(second.url, resumed)).result, 'Success', 'the next start completes it');
  const points = await call(second.url, 'GET', '/streams/%24scavengePoints/0/forward/10', { headers: { accept: 'application/vnd.svc.atom+json' } });
  t.equal(points.body.entries.length, 1, 'to the same point');
  const kept = await call(second.url, 'GET', '/streams/kept/0/forward/200', { headers: { accept: 'application/vnd.svc.atom+json' } });
  t.equal(kept.body.entries.length, 100, 'no acknowledged event was lost');
  const doomed = await call(second.url, 'GET', '/streams/doomed/0/forward/2000', { headers: { accept: 'application/vnd.svc.atom+json' } });
  t.equal(doomed.body.entries.length, 10);
});
