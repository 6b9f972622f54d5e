import t, { type Test } from 'tap';
import type { Engine } from '../../../src/storage/engine.js';
import type { ScavengePoint } from '../../../src/storage/maintenance/scavenge/types.js';
import { engineOptions, newEvents, openEngine, tempDirectory } from '../../helpers/engine.js';
import { chunkNames, readAll, runScavenge, scavengerFor, writeScavengePoint } from '../../helpers/scavenge.js';

/**
 * Proves that the calculation, which works in steps of a bounded number of index entries (a
 * long stream ends a step on its own), weighs and discards exactly as one pass would: a run
 * stopped after its first step resumes to the database an uninterrupted run makes, and every
 * stream keeps its last $maxCount events.
 */
const STREAMS = ['long-a', 'long-b', 'long-c'];
/** Each stream longer than a step's budget of index entries, so each step ends after one stream. */
const EVENTS_PER_STREAM = 17_000;
const MAX_COUNT = 10;

async function fixture(t: Test): Promise<{ engine: Engine; directory: string; point: ScavengePoint }> {
  const directory = tempDirectory(t);
  const engine = await openEngine(directory, { chunkSizeBytes: 1024 * 1024, memTableEntriesMax: 10_000 });
  for (const stream of STREAMS) {
    await engine.setStreamMetadata(stream, -2, { $maxCount: MAX_COUNT });
    for (let written = 0; written < EVENTS_PER_STREAM; written += 1000) await engine.append(stream, -2, newEvents(1000));
  }
  const point = await writeScavengePoint(engine, 0);
  return { engine, directory, point };
}

function outcomeOf(engine: Engine, directory: string): unknown {
  return {
    streams: STREAMS.map((stream) => engine.readStreamForward(stream, 0, 4096).events.map((event) => `${event.logPosition}:${event.eventNumber}`)),
    all: readAll(engine).length,
    chunks: chunkNames(engineOptions(directory).dbPath),
  };
}

t.test('a calculation stopped between its steps resumes to the result of one uninterrupted run', async (t) => {
  const control = await fixture(t);
  const controlScavenger = scavengerFor(control.engine, engineOptions(control.directory).indexPath);
  t.equal((await runScavenge(controlScavenger, control.point)).result, 'Success', 'the uninterrupted run completes');
  controlScavenger.close();
  const expected = outcomeOf(control.engine, control.directory);
  for (const stream of STREAMS) {
    const numbers = control.engine.readStreamForward(stream, 0, 4096).events.map((event) => event.eventNumber);
    t.same(numbers, Array.from({ length: MAX_COUNT }, (_, i) => EVENTS_PER_STREAM - MAX_COUNT + i), `${stream} keeps its last ${MAX_COUNT} events`);
  }

  const { engine, directory, point } = await fixture(t);
  const { indexPath } = engineOptions(directory);
  const controller = new AbortController();
  const streamsDone: number[] = [];
  let scavenger = scavengerFor(engine, indexPath);
  const stopped = await runScavenge(scavenger, point, {
    signal: controller.signal,
    observer: {
      progress: (progress) => {
        if (progress.stage !== 'Calculating') return;
        streamsDone.push(progress.chunksDone);
        controller.abort();
      },
    },
  });
  scavenger.close();
  t.equal(stopped.result, 'Stopped', 'the run stops in the calculation');
  t.ok(streamsDone[0] >= 1 && streamsDone[0] < STREAMS.length, `its first step ended after ${streamsDone[0]} stream(s), before the last`);
  scavenger = scavengerFor(engine, indexPath);
  t.equal((await runScavenge(scavenger, point)).result, 'Success', 'the next run completes');
  scavenger.close();
  t.same(outcomeOf(engine, directory), expected, 'the database is what one uninterrupted run makes');
});
