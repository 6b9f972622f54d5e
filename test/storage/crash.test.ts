import t from 'tap';
import { execa } from 'execa';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readInt64, writeInt64 } from '../../src/storage/log/int64.js';
import { crashEventBody, crashEventId } from '../helpers/crash-writer.js';
import { SMALL, newEvent, openEngine, tempDirectory } from '../helpers/engine.js';
import { testRandom } from '../helpers/random.js';
import { withDeadline } from '../helpers/wait.js';

const CHILD = fileURLToPath(new URL('../helpers/crash-writer.ts', import.meta.url));
const APPENDERS = 16;
const ROUNDS = 10;

/** Runs the writer child, kills it with SIGKILL after `acksBeforeKill` acks, returns the acks. */
async function runAndKill(directory: string, acksBeforeKill: number, seed: number): Promise<Map<string, number>> {
  const acked = new Map<string, number>();
  let count = 0;
  const child = execa(process.execPath, ['--import', 'tsx', CHILD, directory, String(APPENDERS), String(seed)], {
    stdin: 'ignore',
    // Each `ack <stream> <last>` line is counted as it arrives; none is kept.
    stdout: function* (line: unknown) {
      const [word, stream, last] = String(line).split(' ');
      if (word !== 'ack') return;
      acked.set(stream, Math.max(acked.get(stream) ?? -1, Number(last)));
      if (++count === acksBeforeKill) child.kill('SIGKILL');
    },
    reject: false,
  });
  const exit = await withDeadline(child, `the writer child to acknowledge ${acksBeforeKill} appends`).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  if (exit.signal !== 'SIGKILL') throw new Error(`the writer child exited with ${exit.exitCode} before it was killed: ${exit.stderr}`);
  return acked;
}

function writerCheckpoint(directory: string): number {
  return readInt64(readFileSync(join(directory, 'db', 'writer.chk')), 0);
}

/**
 * Sets writer.chk back to `earlier`, a value it held in this round, as a crash of the machine may
 * leave it (group commits do not fsync it; a SIGKILL keeps the page cache); never behind the start
 * of its chunk, which a chunk switch flushes. Returns whether it moved.
 */
function setWriterBack(directory: string, earlier: number): boolean {
  const now = writerCheckpoint(directory);
  const back = Math.max(earlier, Math.floor(now / SMALL.chunkSizeBytes) * SMALL.chunkSizeBytes);
  if (back >= now) return false;
  const bytes = Buffer.alloc(8);
  writeInt64(bytes, 0, back);
  writeFileSync(join(directory, 'db', 'writer.chk'), bytes);
  return true;
}

t.test('SIGKILL under concurrent appends loses nothing acknowledged and invents nothing', async (t) => {
  const random = testRandom(t);
  const directory = tempDirectory(t);
  const everAcked = new Map<string, number>();
  let setBack = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const atStart = round === 0 ? 0 : writerCheckpoint(directory);
    const acks = await runAndKill(directory, random.integer(20, 619), random.word());
    if (round % 2 === 1 && setWriterBack(directory, atStart)) setBack++;
    for (const [stream, last] of acks) everAcked.set(stream, Math.max(everAcked.get(stream) ?? -1, last));
    const engine = await openEngine(directory);
    let problems = 0;
    for (let i = 0; i < APPENDERS; i++) {
      const stream = `crash-${i}`;
      const events = engine.readStreamForward(stream, 0, 4096).events;
      const last = events.length - 1;
      if (last < (everAcked.get(stream) ?? -1)) problems++;
      events.forEach((event, number) => {
        const body = JSON.parse(event.data.toString());
        const sent = event.eventNumber === number && event.eventId === crashEventId(stream, number) &&
          event.data.equals(crashEventBody(stream, number, body.batchFirst, body.batchSize));
        const wholeBatch = body.batchFirst + body.batchSize - 1 <= last;
        if (!sent || !wholeBatch) problems++;
      });
    }
    t.equal(problems, 0, `round ${round}: every acknowledged event present, in order, whole batches, none invented`);
    const after = await engine.append('after-crash', round - 1, [newEvent()]);
    t.equal(after.firstEventNumber, round, 'appends continue with the right numbers after the crash');
    await engine.close();
  }
  t.ok(setBack > 0, `writer.chk was set back behind acknowledged appends after ${setBack} kills`);
});
