import t, { type Test } from 'tap';
import type { Engine } from '../../../src/storage/engine.js';
import type { ChunkExecutionReport, ScavengePoint } from '../../../src/storage/maintenance/scavenge/types.js';
import { engineOptions, openEngine, tempDirectory } from '../../helpers/engine.js';
import { TestRandom, testSeed } from '../../helpers/random.js';
import { Clock, fixtureKeeps, writeFixture } from '../../helpers/scavenge-fixture.js';
import { chunkNames, identify, readAll, readAllEvents, runScavenge, scavengerFor, writeScavengePoint } from '../../helpers/scavenge.js';

/**
 * Proves the threshold: -1 rewrites every chunk up to the point, 0 every chunk with a weight
 * above 0, N every chunk whose weight is above N; the others are left as they are.
 */
async function fixtureEngine(t: Test): Promise<{ engine: Engine; directory: string }> {
  const random = new TestRandom(testSeed(t));
  const directory = tempDirectory(t);
  const clock = new Clock(Date.UTC(2024, 0, 1));
  const engine = await openEngine(directory, { clock: clock.now });
  // Chunks of events no rule touches come first: their weight is 0.
  for (let i = 0; i < 30; i++) {
    await engine.append('untouched', -2, Array.from({ length: 5 }, () => ({
      eventId: random.uuid(), eventType: 'Plain', data: Buffer.from(JSON.stringify({ pad: 'u'.repeat(900) })), metadata: Buffer.alloc(0), isJson: true,
    })));
  }
  await writeFixture(engine, random, clock);
  return { engine, directory };
}

async function scavengeWith(engine: Engine, directory: string, threshold: number): Promise<ChunkExecutionReport[] & { point?: ScavengePoint }> {
  const point = await writeScavengePoint(engine, threshold);
  const reports: ChunkExecutionReport[] & { point?: ScavengePoint } = [];
  reports.point = point;
  const scavenger = scavengerFor(engine, engineOptions(directory).indexPath);
  const outcome = await runScavenge(scavenger, point, { mergeChunks: false, observer: { chunkExecuted: (report) => reports.push(report) } });
  scavenger.close();
  if (outcome.result !== 'Success') throw new Error(`scavenge ${outcome.result}`);
  return reports;
}

t.test('threshold -1 rewrites every chunk up to the point', async (t) => {
  const { engine, directory } = await fixtureEngine(t);
  const reports = await scavengeWith(engine, directory, -1);
  t.ok(reports.length >= 5, `${reports.length} chunks executed`);
  t.ok(reports.every((report) => report.wasScavenged), 'every chunk was rewritten');
  t.ok(reports.some((report) => report.weight === 0), 'chunks of weight 0 among them');
  const names = chunkNames(engineOptions(directory).dbPath);
  t.ok(names.slice(0, reports.length).every((name) => !name.endsWith('.000000')), `every chunk up to the point has a new version: ${names.join(' ')}`);
});

t.test('threshold 0 rewrites the chunks that weigh something', async (t) => {
  const { engine, directory } = await fixtureEngine(t);
  const before = readAllEvents(engine);
  const reports = await scavengeWith(engine, directory, 0);
  t.ok(reports.some((report) => report.weight === 0 && !report.wasScavenged), 'a chunk of weight 0 is skipped');
  t.ok(reports.some((report) => report.weight > 0 && report.wasScavenged), 'a weighted chunk is rewritten');
  t.ok(reports.every((report) => report.wasScavenged === report.weight > 0), 'rewritten exactly when the weight is above 0');
  const after = new Set(readAll(engine));
  const removed = before.filter((event) => !after.has(identify(event)));
  t.ok(removed.length > 0, 'events were removed');
  t.same(removed.filter((event) => fixtureKeeps(event, before, reports.point!)).map(identify), [], 'only events the rules discard were removed');
});

t.test('a threshold above 0 rewrites only chunks heavier than it', async (t) => {
  const { engine, directory } = await fixtureEngine(t);
  const before = readAll(engine);
  const names = chunkNames(engineOptions(directory).dbPath);
  const weighed = await scavengeWith(engine, directory, 1_000_000);
  t.ok(weighed.every((report) => !report.wasScavenged), 'a threshold above every weight rewrites nothing');
  t.same(readAll(engine).slice(0, before.length), before, '$all is unchanged');
  t.same(chunkNames(engineOptions(directory).dbPath).slice(0, names.length - 1), names.slice(0, -1), 'no chunk file changed');

  const weights = [...new Set(weighed.map((report) => report.weight).filter((weight) => weight > 0))].sort((a, b) => a - b);
  t.ok(weights.length >= 2, `distinct positive weights: ${weights.join(', ')}`);
  const threshold = weights[weights.length - 1] - 1;
  const reports = await scavengeWith(engine, directory, threshold);
  t.ok(reports.every((report) => report.wasScavenged === report.weight > threshold), `rewritten exactly when the weight is above ${threshold}`);
  t.ok(reports.some((report) => report.weight > 0 && !report.wasScavenged), 'a lighter weighted chunk is skipped');
  t.ok(reports.some((report) => report.wasScavenged), 'the heaviest chunk is rewritten');
});
