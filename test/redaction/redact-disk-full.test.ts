/**
 * `svcdb redact` on a real full disk: the database on a small tmpfs, the node a real `svcdb serve`
 * and the command a real child process. When no copy fits, the run ends with its coded error and
 * exit code, redacts nothing and leaves no copy; when one batch of four fits and the next does
 * not, the chunks switched in stay redacted, the message counts them, and the rest are untouched.
 * Once space is back the node takes writes and a second run redacts the rest. Mounting needs root,
 * as CI runs.
 */
import t, { type Test } from 'tap';
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { Errors } from '../../src/common/errors.js';
import { adminFetch } from '../helpers/auth.js';
import { runCli, startServer, type RunningServer } from '../helpers/cli.js';
import { tempDirectory } from '../helpers/engine.js';
import { chunkFilesOf, tempFilesOf } from '../helpers/redaction.js';
import { freeBytes, mountTmpfs } from '../helpers/tmpfs.js';

const MiB = 1024 * 1024;
const STREAM = 'orders-1';
const EVENTS = 330;
/** About 50 events to a chunk of 1 MiB: these lie in five different completed chunks. */
const TARGETS = [10, 60, 110, 160, 210];
const FILLER = 'filler.bin';

const bodyOf = (number: number) => JSON.stringify({ number, secret: `s-${number}`, pad: 'x'.repeat(20_000) });

async function fill(url: string): Promise<void> {
  for (let first = 0; first < EVENTS; first += 10) {
    const events = Array.from({ length: 10 }, (_, i) => ({ eventId: randomUUID(), eventType: 'Order', data: JSON.parse(bodyOf(first + i)) as unknown }));
    const response = await adminFetch(`${url}/streams/${STREAM}`, {
      method: 'POST', headers: { 'content-type': 'application/vnd.svc.events+json' }, body: JSON.stringify(events),
    });
    if (response.status !== 201) throw new Error(`append: ${response.status} ${await response.text()}`);
  }
}

/** Whether event `number` reads back redacted (empty data), or else with the data written. */
async function readsRedacted(t: Test, url: string, number: number): Promise<boolean> {
  const response = await adminFetch(`${url}/streams/${STREAM}/${number}`, { headers: { accept: 'application/json' } });
  const body = await response.text();
  if (body === '""') return true;
  t.same(JSON.parse(body), JSON.parse(bodyOf(number)), `event ${number} keeps its data`);
  return false;
}

async function redactedTargets(t: Test, url: string): Promise<number[]> {
  const redacted: number[] = [];
  for (const number of TARGETS) if (await readsRedacted(t, url, number)) redacted.push(number);
  return redacted;
}

/** Fills the tmpfs holding `mount` with a file that leaves `bytesLeft` free. */
function leaveFree(mount: string, bytesLeft: number): void {
  rmSync(join(mount, FILLER), { force: true });
  writeFileSync(join(mount, FILLER), Buffer.alloc(Math.max(0, freeBytes(mount) - bytesLeft)));
}

async function startOnTmpfs(t: Test): Promise<{ mount: string; dbPath: string; server: RunningServer }> {
  t.equal(process.getuid?.(), 0, 'this test mounts a tmpfs and needs root');
  const mount = mountTmpfs(t, 16 * MiB);
  const dbPath = join(mount, 'db');
  // The index lives elsewhere, so that only the chunk files and the copies take the tmpfs's space.
  const index = join(tempDirectory(t), 'index');
  const server = await startServer(t, { dbPath, args: ['--enable-unix-socket', '--chunk-size', String(MiB), '--index', index] });
  await fill(server.url);
  return { mount, dbPath, server };
}

const redactArgs = (dbPath: string) => ['redact', '--db', dbPath, '--events', TARGETS.map((number) => `${number}@${STREAM}`).join(',')];

t.test('with no room for a copy, the run fails with its code, changes nothing, and a run after space is freed redacts', async (t) => {
  const { mount, dbPath, server } = await startOnTmpfs(t);
  const dryRun = await runCli([...redactArgs(dbPath), '--dry-run', '--json']);
  const planned = JSON.parse(dryRun.stdout) as { events: Array<{ chunkFile: string }> };
  t.equal(new Set(planned.events.map(({ chunkFile }) => chunkFile)).size, TARGETS.length, 'the events lie in five chunks');
  const chunksBefore = chunkFilesOf(mount);

  leaveFree(mount, MiB / 2);
  const full = await runCli(redactArgs(dbPath));
  t.equal(full.code, ExitCode.io, 'exit code 5', { stderr: full.stderr });
  t.match(full.stderr, Errors.redactDiskFull.code, 'the error code is shown');
  t.match(full.stderr, /is full \(ENOSPC\).*nothing was redacted.*Free space/s, 'the message says nothing changed and how to go on');
  t.same(tempFilesOf(mount), [], 'no copy is left');
  t.same(chunkFilesOf(mount), chunksBefore, 'the chunk files are the same');
  t.same(await redactedTargets(t, server.url), [], 'no event is redacted');

  rmSync(join(mount, FILLER));
  const again = await runCli(redactArgs(dbPath));
  t.equal(again.code, 0, 'with space back, the run succeeds', { stderr: again.stderr });
  t.same(await redactedTargets(t, server.url), TARGETS, 'and redacts every event');
});

t.test('when the first batch fits and the next does not, the switched chunks stay redacted and a second run does the rest', async (t) => {
  const { mount, dbPath, server } = await startOnTmpfs(t);
  // Room for four copies of a chunk (the first batch), not for a fifth while the replaced files wait.
  leaveFree(mount, 4 * MiB + MiB / 2);
  const partial = await runCli(redactArgs(dbPath));
  t.equal(partial.code, ExitCode.io, 'exit code 5', { stderr: partial.stderr });
  t.match(partial.stderr, /the 4 chunk\(s\) switched in before stay redacted, the rest were not/, 'the message counts the chunks switched in');
  t.same(tempFilesOf(mount), [], 'no copy is left');
  const redacted = await redactedTargets(t, server.url);
  t.equal(redacted.length, 4, `four events are redacted (${redacted.join(', ')}), the fifth keeps its data`);

  rmSync(join(mount, FILLER));
  const write = await adminFetch(`${server.url}/streams/${STREAM}`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'svc-eventtype': 'Order', 'svc-eventid': randomUUID() }, body: bodyOf(EVENTS),
  });
  t.equal(write.status, 201, 'the node takes writes once space is back');
  const rest = await runCli([...redactArgs(dbPath), '--json']);
  t.equal(rest.code, 0, 'a second run succeeds', { stderr: rest.stderr });
  const result = JSON.parse(rest.stdout) as { events: Array<{ eventNumber: number; alreadyRedacted: boolean }>; chunksSwitched: string[] };
  t.same(result.events.filter(({ alreadyRedacted }) => alreadyRedacted).map(({ eventNumber }) => eventNumber).sort((a, b) => a - b), redacted, 'it skips the events already redacted');
  t.equal(result.chunksSwitched.length, 1, 'and switches the one chunk left');
  t.same(await redactedTargets(t, server.url), TARGETS, 'every event is redacted');
});
