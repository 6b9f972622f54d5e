import t, { type Test } from 'tap';
import { Errors } from '../../src/common/errors.js';
import type { Engine } from '../../src/storage/engine.js';
import type { EngineOptions } from '../../src/storage/engine-options.js';
import type { NewEvent } from '../../src/storage/streams/write-types.js';
import { newEvent, openEngine, tempDirectory } from '../helpers/engine.js';
import { injectWriteFaults, type WriteFault, type WriteInjector } from '../helpers/write-faults.js';

/**
 * A full disk at any write of the engine: a write that fails with ENOSPC or EDQUOT, or writes
 * only part of its bytes and then fails, is never acknowledged, never kept, and leaves the engine
 * running; the next start opens the database with every acknowledged event and nothing else.
 */

interface Acknowledged {
  streamName: string;
  firstEventNumber: number;
  events: NewEvent[];
}

interface Outcome {
  acknowledged: Acknowledged[];
  refusedCodes: string[];
}

const STREAMS = 4;
/** Rounds of concurrent appends; with 64 KiB chunks they fill several chunks and index files. */
const ROUNDS = 12;

/** How large the events are, and the engine they are written to. */
interface Workload {
  /** Each event's data is padded by up to eight times this. */
  padUnitBytes: number;
  /** Appended as follow-ups, as log consumers append. */
  followUp: boolean;
  engine: Partial<EngineOptions>;
}

/** Small commits, written as they are made; 64 KiB chunks (the tests' default). */
const SMALL_COMMITS: Workload = { padUnitBytes: 200, followUp: false, engine: {} };
/** Commits of 64 KiB and more of follow-ups, which the writer has written on the thread pool, in 1 MiB chunks. */
const LARGE_COMMITS: Workload = { padUnitBytes: 3000, followUp: true, engine: { chunkSizeBytes: 1024 * 1024 } };

function eventsFor(round: number, stream: number, workload: Workload): NewEvent[] {
  const count = 1 + ((round + stream) % 5);
  return Array.from({ length: count }, (_, i) => newEvent('Filled', { round, stream, i, pad: 'p'.repeat(((round * 7 + stream * 13 + i) % 9) * workload.padUnitBytes) }));
}

/** Concurrent appends to a few streams, so group commits hold several writes and cross chunks. */
async function appendRounds(engine: Engine, outcome: Outcome, rounds = ROUNDS, workload = SMALL_COMMITS): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    const writes = Array.from({ length: STREAMS }, (_, stream) => ({ streamName: `filled-${stream}`, events: eventsFor(round, stream, workload) }));
    const results = await Promise.allSettled(writes.map((write) => engine.append(write.streamName, -2, write.events, { followUp: workload.followUp })));
    results.forEach((result, i) => {
      if (result.status === 'fulfilled') outcome.acknowledged.push({ ...writes[i], firstEventNumber: result.value.firstEventNumber });
      else outcome.refusedCodes.push(String((result.reason as { code?: string }).code));
    });
  }
}

/** Every stream holds exactly its acknowledged events, in order, with their data. */
function checkStreams(t: Test, engine: Engine, acknowledged: Acknowledged[], label: string): void {
  for (let stream = 0; stream < STREAMS; stream++) {
    const streamName = `filled-${stream}`;
    const expected = acknowledged
      .filter((write) => write.streamName === streamName)
      .sort((a, b) => a.firstEventNumber - b.firstEventNumber)
      .flatMap((write) => write.events);
    const read = engine.readStreamForward(streamName, 0, 4096);
    const events = read.status === 'success' ? read.events : [];
    const same = events.length === expected.length && events.every((event, i) =>
      event.eventNumber === i && event.eventId === expected[i].eventId && event.data.equals(expected[i].data));
    if (!same) {
      t.fail(`${label}: ${streamName} holds ${events.length} events, ${expected.length} were acknowledged`, {
        found: events.map((event) => event.eventId), expected: expected.map((event) => event.eventId),
      });
    }
  }
}

/** Opens the engine; a start refused by a full disk is tried again once the fault has passed. */
async function openThroughFault(directory: string, outcome: Outcome, workload: Workload): Promise<Engine> {
  try {
    return await openEngine(directory, workload.engine);
  } catch (error) {
    outcome.refusedCodes.push(String((error as { code?: string }).code));
    return openEngine(directory, workload.engine);
  }
}

/** Runs the workload with one fault; returns how many writes the fault failed or cut short. */
async function runWithFault(t: Test, injector: WriteInjector, workload: Workload, fault: WriteFault, failAt: number): Promise<number> {
  const directory = tempDirectory(t);
  const outcome: Outcome = { acknowledged: [], refusedCodes: [] };
  injector.arm({ failAt, fault });
  const engine = await openThroughFault(directory, outcome, workload);
  let fatal: Error | undefined;
  engine.onFatal((error) => (fatal = error));
  await appendRounds(engine, outcome, ROUNDS, workload);
  await engine.close();
  const injected = injector.injected;
  injector.arm({ failAt: 0, fault });
  const label = `${fault} at write ${failAt}`;
  if (fatal) t.fail(`${label}: the engine stopped`, { code: (fatal as { code?: string }).code });
  const unexpected = outcome.refusedCodes.filter((code) => code !== Errors.storageDiskFull.code);
  if (unexpected.length > 0) t.fail(`${label}: refused with another code`, { codes: unexpected });

  let reopened: Engine;
  try {
    reopened = await openEngine(directory, workload.engine);
  } catch (error) {
    t.fail(`${label}: the database does not open again`, { code: (error as { code?: string }).code, message: (error as Error).message });
    return injected;
  }
  checkStreams(t, reopened, outcome.acknowledged, label);
  // Space is back: the same database takes writes again.
  const after = await reopened.append('after-the-fault', -1, [newEvent()]);
  if (after.firstEventNumber !== 0) t.fail(`${label}: no write after the fault`);
  await reopened.close();
  return injected;
}

/**
 * Runs the workload once without faults to count its writes and where they come from, then once
 * with each write failing in each way (every `stride`th write for a fault that takes the same path
 * as another).
 */
async function failEachWrite(t: Test, workload: Workload, sitesExpected: RegExp[], strides: Record<WriteFault, number>): Promise<void> {
  const injector = injectWriteFaults(t);

  const clean = tempDirectory(t);
  const cleanOutcome: Outcome = { acknowledged: [], refusedCodes: [] };
  injector.arm({ failAt: 0, fault: 'enospc' });
  const engine = await openEngine(clean, workload.engine);
  await appendRounds(engine, cleanOutcome, ROUNDS, workload);
  await engine.settleIndex();
  await engine.close();
  const writes = injector.count;
  t.equal(cleanOutcome.refusedCodes.length, 0, 'without faults every append is acknowledged');
  const sites = [...injector.sites.keys()].join(' ');
  for (const site of sitesExpected) t.match(sites, site, `the workload writes through ${site.source}`);

  let refusals = 0;
  for (const fault of ['enospc', 'short', 'edquot'] as const) {
    for (let failAt = 1; failAt <= writes; failAt += strides[fault]) {
      refusals += await runWithFault(t, injector, workload, fault, failAt);
    }
  }
  t.ok(refusals > 0, `faults were injected (${writes} writes per run)`);
}

t.test('a full disk at any single write of the engine: nothing refused is kept, nothing acknowledged is lost', async (t) => {
  const sites = [/chunk\.ts:\S*\.create/, /chunk\.ts:Chunk\.commitEncoded writeSync/, /chunk\.ts:Chunk\.complete/, /checkpoint\.ts/, /durable-file\.ts/, /index-file-writer\.ts/, /existence-filter\.ts/];
  // EDQUOT takes the path of ENOSPC: every third write is enough.
  await failEachWrite(t, SMALL_COMMITS, sites, { enospc: 1, short: 1, edquot: 3 });
});

t.test('a full disk at a large commit, written on the thread pool: nothing refused is kept, nothing acknowledged is lost', async (t) => {
  await failEachWrite(t, LARGE_COMMITS, [/chunk\.ts:Chunk\.commitEncoded FileHandle\.write/, /chunk\.ts:Chunk\.complete/], { enospc: 1, short: 1, edquot: 3 });
});

t.test('while the disk stays full, writes are refused with 507 and reads go on; once space is back, writes resume', async (t) => {
  const injector = injectWriteFaults(t);
  const directory = tempDirectory(t);
  const engine = await openEngine(directory);
  const outcome: Outcome = { acknowledged: [], refusedCodes: [] };
  await appendRounds(engine, outcome, 3);
  t.equal(outcome.refusedCodes.length, 0);

  injector.arm({ failAt: 1, fault: 'short', persistent: true });
  const full: Outcome = { acknowledged: [], refusedCodes: [] };
  await appendRounds(engine, full, 6);
  t.equal(full.acknowledged.length, 0, 'nothing is acknowledged while the disk is full');
  t.ok(full.refusedCodes.length > 0 && full.refusedCodes.every((code) => code === Errors.storageDiskFull.code), 'every refusal is the disk-full error');
  await t.rejects(engine.append('other', -1, [newEvent()]), { code: Errors.storageDiskFull.code, statusCode: 507 });
  t.equal(engine.status().state, 'open', 'the engine keeps running');
  checkStreams(t, engine, outcome.acknowledged, 'reads while full');
  t.ok(engine.stats().flushes.refused > 0, 'refused commits are counted');

  injector.freeSpace();
  await appendRounds(engine, outcome, 3);
  t.equal(outcome.refusedCodes.length, 0, 'writes are accepted again once space is back');
  checkStreams(t, engine, outcome.acknowledged, 'after space is back');
  await engine.close();
  injector.restore();

  const reopened = await openEngine(directory);
  checkStreams(t, reopened, outcome.acknowledged, 'after restart');
});
