import t from 'tap';
import { execa } from 'execa';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CheckpointName } from '../../src/storage/layout.js';
import { readCheckpointFile, setWriterBack } from '../helpers/checkpoint-files.js';
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

t.test('SIGKILL under concurrent appends loses nothing acknowledged and invents nothing', async (t) => {
  const random = testRandom(t);
  const directory = tempDirectory(t);
  const everAcked = new Map<string, number>();
  let setBack = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const atStart = round === 0 ? 0 : readCheckpointFile(join(directory, 'db'), CheckpointName.writer);
    const acks = await runAndKill(directory, random.integer(20, 619), random.word());
    // As a crash of the machine may leave it: the restart must find acknowledged appends past it.
    if (round % 2 === 1 && setWriterBack(join(directory, 'db'), atStart, SMALL.chunkSizeBytes) > 0) setBack++;
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
