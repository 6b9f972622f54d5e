import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { engineOptions, openEngine, tempDirectory } from '../../helpers/engine.js';
import { TestRandom, testSeed } from '../../helpers/random.js';
import { Clock, FIXTURE_STREAMS, fixtureKeeps, writeFixture } from '../../helpers/scavenge-fixture.js';
import { identify, readAll, readAllEvents, readStreams, runScavenge, scavengerFor, writeScavengePoint } from '../../helpers/scavenge.js';
import { withDeadline } from '../../helpers/wait.js';

/**
 * Proves that a scavenge killed (SIGKILL) at a random moment of chunk execution or merging, while
 * appends go on, leaves a database that opens with every acknowledged event, reads as before, and
 * holds no event the rules would not have (nothing removed comes back); the next run to the same
 * point resumes and completes with exactly the events the rules keep.
 */
const CHILD = fileURLToPath(new URL('../../helpers/scavenge-crash-child.ts', import.meta.url));
const ROUNDS = 6;

interface ChildEnd {
  acknowledged: string[];
  killed: boolean;
  stdout: string;
  stderr: string;
}

/** Runs the child and kills it `delayMs` after it starts `stage`. */
function runChild(directory: string, pointJson: string, clockMs: number, stage: string, delayMs: number): Promise<ChildEnd> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, directory, pointJson, String(clockMs)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes(`stage ${stage}\n`) && !child.killed) setTimeout(() => child.kill('SIGKILL'), delayMs);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (_, signal) => {
      const acknowledged = [...stdout.matchAll(/^ack (\d+) (\S+)$/gm)].map((match) => `live/${match[1]}/${match[2]}`);
      resolve({ acknowledged, killed: signal === 'SIGKILL', stdout, stderr });
    });
  });
}

t.test('a scavenge killed during execution or merging resumes without losing or resurrecting events', async (t) => {
  const random = new TestRandom(testSeed(t));
  let kills = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const stage = random.integer(0, 1) === 0 ? 'ExecutingChunks' : 'MergingChunks';
    const delayMs = random.integer(0, 120);
    await t.test(`round ${round}: killed ${delayMs} ms into ${stage}`, async (t) => {
      const directory = tempDirectory(t);
      const clock = new Clock(Date.UTC(2024, 0, 1));
      let engine = await openEngine(directory, { clock: clock.now });
      await writeFixture(engine, random.fork(round), clock);
      const point = await writeScavengePoint(engine, 0);
      const before = readAllEvents(engine);
      const streams = readStreams(engine, FIXTURE_STREAMS);
      const kept = before.filter((event) => fixtureKeeps(event, before, point)).map(identify);
      const known = new Set(before.map(identify));
      await engine.close();

      const end = await withDeadline(runChild(directory, JSON.stringify(point), clock.nowMs, stage, delayMs), 'the child ends');
      t.ok(end.killed || end.stdout.includes('done Success'), `the child was ${end.killed ? 'killed' : 'not killed: it completed'}${end.stderr ? `: ${end.stderr}` : ''}`);
      if (end.killed) kills++;

      engine = await openEngine(directory, { clock: clock.now });
      const live = engine.readStreamForward('live', 0, 4096).events.map(identify);
      t.same(live.slice(0, end.acknowledged.length), end.acknowledged, 'every acknowledged append is there, in order');
      t.ok(live.length <= end.acknowledged.length + 1, 'at most the append in flight is there unacknowledged');
      t.same(readStreams(engine, FIXTURE_STREAMS), streams, 'stream reads are as before');
      const all = readAll(engine);
      const liveSet = new Set(live);
      t.same(all.filter((event) => !known.has(event) && !liveSet.has(event)), [], '$all holds no event that was not written');
      t.same(kept.filter((event) => !all.includes(event)), [], '$all holds every event the rules keep');

      const scavenger = scavengerFor(engine, engineOptions(directory).indexPath);
      t.equal((await runScavenge(scavenger, point)).result, 'Success', 'the next run resumes and completes');
      scavenger.close();
      t.same(readAll(engine), [...kept, ...live], '$all then holds exactly what the rules keep and the new events');
      await engine.close();
      engine = await openEngine(directory, { clock: clock.now });
      t.same(readAll(engine), [...kept, ...live], 'and so after a restart: nothing removed comes back');
      t.same(readStreams(engine, FIXTURE_STREAMS), streams, 'stream reads are as before');
    });
  }
  t.ok(kills >= ROUNDS / 2, `${kills} of ${ROUNDS} children were killed before the end of their run`);
});
