/**
 * A real full disk: `svcdb serve` on a small tmpfs is appended to until the disk fills. Every
 * refusal is a coded 507, reads go on, writes are accepted again once the tmpfs is grown, and
 * after a SIGKILL and a restart every event that got a 201 is there, in order, with its data.
 * Mounting needs root, as CI runs.
 */
import t from 'tap';
import { execaSync } from 'execa';
import { join } from 'node:path';
import { Errors } from '../../src/common/errors.js';
import { adminFetch } from '../helpers/auth.js';
import { startServer } from '../helpers/cli.js';
import { openEngine } from '../helpers/engine.js';
import { mountTmpfs } from '../helpers/tmpfs.js';

const STREAM = 'filling';
/** Appends give up after this many, full or not: the test always ends. */
const APPENDS_MAX = 4000;
/** Refusals in a row that show the disk is full for good. */
const REFUSALS_IN_A_ROW = 5;

function eventBody(number: number): string {
  return JSON.stringify({ number, pad: 'x'.repeat(16 * 1024 + (number % 7) * 1000) });
}

function eventId(number: number): string {
  return `00000000-0000-4000-8000-${number.toString(16).padStart(12, '0')}`;
}

interface AppendOutcome {
  status: number;
  code?: string;
}

async function append(url: string, number: number): Promise<AppendOutcome> {
  const response = await adminFetch(`${url}/streams/${STREAM}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'svc-eventtype': 'Filled', 'svc-eventid': eventId(number) },
    body: eventBody(number),
  });
  const text = await response.text();
  if (response.status === 201) return { status: 201 };
  const parsed = JSON.parse(text) as { code?: string; message?: string };
  return { status: response.status, code: parsed.code };
}

t.test('a node on a full disk refuses writes with 507, serves reads, takes writes again once space is back, and loses nothing acknowledged', async (t) => {
  t.equal(process.getuid?.(), 0, 'this test mounts a tmpfs and needs root');
  const directory = mountTmpfs(t, 3 * 1024 * 1024);
  const dbPath = join(directory, 'db');
  const args = ['--chunk-size', '1048576'];
  const first = await startServer(t, { dbPath, args });

  const acknowledged: number[] = [];
  const refusals: AppendOutcome[] = [];
  let next = 0;
  let inARow = 0;
  while (next < APPENDS_MAX && inARow < REFUSALS_IN_A_ROW) {
    const outcome = await append(first.url, next);
    if (outcome.status === 201) {
      acknowledged.push(next++);
      inARow = 0;
    } else {
      refusals.push(outcome);
      inARow++;
    }
  }
  t.equal(inARow, REFUSALS_IN_A_ROW, `the disk filled up after ${acknowledged.length} appends`);
  t.same(new Set(refusals.map((refusal) => `${refusal.status} ${refusal.code}`)), new Set([`507 ${Errors.storageDiskFull.code}`]), 'every refusal is a coded 507');

  const read = await adminFetch(`${first.url}/streams/${STREAM}/0`, { headers: { accept: 'application/json' } });
  t.equal(read.status, 200, 'reads go on while the disk is full');
  t.equal(await read.text(), eventBody(0), 'and return what was written');

  execaSync('mount', ['-o', 'remount,size=64m', directory]);
  for (let i = 0; i < 20; i++) {
    const outcome = await append(first.url, next);
    t.equal(outcome.status, 201, `append ${next} is accepted once space is back`);
    if (outcome.status === 201) acknowledged.push(next++);
  }

  await first.process.stop('SIGKILL');
  const second = await startServer(t, { dbPath, args });
  const after = await append(second.url, next);
  t.equal(after.status, 201, 'the node starts again and takes writes');
  acknowledged.push(next++);
  t.equal((await second.process.stop('SIGTERM')).code, 0, 'and stops cleanly');

  const engine = await openEngine(directory, { chunkSizeBytes: 1048576 });
  const events = engine.readStreamForward(STREAM, 0, 4096).events;
  t.equal(events.length, acknowledged.length, 'the stream holds exactly the acknowledged events');
  const intact = events.every((event, i) => event.eventNumber === i && event.eventId === eventId(acknowledged[i]) &&
    event.data.toString() === eventBody(acknowledged[i]));
  t.ok(intact, 'in order, each with its id and data');
  await engine.close();
});
