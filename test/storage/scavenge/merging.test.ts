import t from 'tap';
import { engineOptions, openEngine, tempDirectory } from '../../helpers/engine.js';
import { TestRandom, testSeed } from '../../helpers/random.js';
import { Clock, FIXTURE_STREAMS, fixtureKeeps, writeFixture } from '../../helpers/scavenge-fixture.js';
import { chunkNames, identify, readAll, readAllEvents, readStreams, runScavenge, scavengerFor, writeScavengePoint } from '../../helpers/scavenge.js';
import { parseChunkFileName } from '../../../src/storage/log/chunk-format.js';
import type { ChunkMergeReport } from '../../../src/storage/maintenance/scavenge/types.js';

/**
 * Proves merging: with it, neighbouring scavenged chunks that fit in one chunk become one file
 * (reads unchanged, also after a restart); without it, every chunk keeps a file of its own.
 */
for (const mergeChunks of [true, false]) {
  t.test(`merging ${mergeChunks ? 'on' : 'off'}`, async (t) => {
    const random = new TestRandom(testSeed(t));
    const directory = tempDirectory(t);
    const { dbPath, indexPath } = engineOptions(directory);
    const clock = new Clock(Date.UTC(2024, 0, 1));
    const engine = await openEngine(directory, { clock: clock.now });
    await writeFixture(engine, random, clock);
    const point = await writeScavengePoint(engine, 0);
    const before = readAllEvents(engine);
    const streams = readStreams(engine, FIXTURE_STREAMS);
    const filesBefore = chunkNames(dbPath).length;
    const merges: ChunkMergeReport[] = [];
    const scavenger = scavengerFor(engine, indexPath);
    t.equal((await runScavenge(scavenger, point, { mergeChunks, observer: { chunksMerged: (report) => merges.push(report) } })).result, 'Success', 'the scavenge completes');
    scavenger.close();
    const expected = before.filter((event) => fixtureKeeps(event, before, point)).map(identify);
    t.same(readAll(engine), expected, '$all shows what the rules keep');
    t.same(readStreams(engine, FIXTURE_STREAMS), streams, 'stream reads are unchanged');
    const files = chunkNames(dbPath);
    if (mergeChunks) {
      t.ok(merges.length > 0 && merges.every((report) => report.wasMerged && report.chunkEndNumber > report.chunkStartNumber), 'merges were reported');
      t.ok(files.length < filesBefore, `fewer chunk files: ${files.join(' ')}`);
      const numbers = files.map((name) => parseChunkFileName(name)!.chunkNumber);
      t.ok(numbers.some((number, i) => i + 1 < numbers.length && numbers[i + 1] > number + 1), 'a file covers several chunks');
    } else {
      t.equal(merges.length, 0, 'nothing merged');
      t.equal(files.length, filesBefore, 'one file per chunk still');
    }
    await engine.close();
    const reopened = await openEngine(directory, { clock: clock.now });
    t.same(readAll(reopened), expected, '$all is the same after a restart');
    t.same(readStreams(reopened, FIXTURE_STREAMS), streams, 'stream reads are the same after a restart');
  });
}
