/**
 * SIGKILL of a real `svcdb serve` under concurrent HTTP appends, 20 times on one database
 * (SVC_TEST_CRASH_KILLS sets how many, SVC_TEST_CRASH_APPENDERS how many appenders). After
 * each kill the node starts again on the same --db (its own recovery) and every stream is read
 * back over HTTP: every append that got a 201 is there, in order, byte for byte; every event
 * there was sent by the test, in whole batches. At the end the node stops cleanly and the engine
 * reads the log itself, $all included, where no event the test did not send may appear.
 *
 * A group commit fsyncs the chunk but not writer.chk, which a SIGKILL keeps (the page cache
 * survives it) and a crash of the machine may not. Every other kill therefore also sets writer.chk
 * back to a value it held earlier in the round, as such a crash may leave it, so that the start
 * must find the acknowledged appends past it.
 *
 * Batch sizes, contents and kill points come from the printed seed (SVC_TEST_SEED repeats them);
 * which appends are in flight when a kill lands depends on timing as well.
 */
import t, { type Test } from 'tap';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { CheckpointName } from '../../src/storage/layout.js';
import { Engine } from '../../src/storage/engine.js';
import { readCheckpointFile, setWriterBack } from '../helpers/checkpoint-files.js';
import { appendUntilFailure, readStreamOverHttp, type AppendTarget } from '../helpers/crash-appender.js';
import { StreamLedger, type ReadEvent } from '../helpers/crash-ledger.js';
import { startServer, type RunningServer } from '../helpers/cli.js';
import { testRandom, type TestRandom } from '../helpers/random.js';
import { withDeadline } from '../helpers/wait.js';

const KILLS = Number(process.env.SVC_TEST_CRASH_KILLS ?? 20);
const APPENDERS = Number(process.env.SVC_TEST_CRASH_APPENDERS ?? 32);
// Twenty node starts, each recovering the log and the index: on a loaded machine that outlasts the
// suite's 300 s per file, so this file asks the runner for more (45 s a kill).
t.setTimeout(Math.max(900_000, KILLS * 45_000));
const CHUNK_SIZE_BYTES = 1024 * 1024;
/** Small, so that the index writes files and a restart reads them as well as the log. */
const MEM_TABLE_ENTRIES = 500;
const EXISTENCE_FILTER_BYTES = 64 * 1024;
const SERVE_ARGS = [
  '--chunk-size', String(CHUNK_SIZE_BYTES),
  '--max-mem-table-size', String(MEM_TABLE_ENTRIES),
  '--stream-existence-filter-size', String(EXISTENCE_FILTER_BYTES),
];
/** Each kill comes after a number of acknowledgements drawn from this range. */
const ACKS_BEFORE_KILL_MIN = 5;
const ACKS_BEFORE_KILL_MAX = 250;
/** The engine's largest read. */
const READ_COUNT = 4096;

interface KillOutcome {
  /** 201s received, some of them after the kill (sent before it, read after). */
  acknowledged: number;
  refusals: string[];
  signal: NodeJS.Signals | null;
}

/** Appends on every stream, SIGKILLs the node at the `killAt`th acknowledgement, and waits for everything to stop. */
async function appendAndKill(server: RunningServer, ledgers: StreamLedger[], random: TestRandom, killAt: number): Promise<KillOutcome> {
  const agent = new Agent({ keepAlive: true, maxSockets: APPENDERS });
  let acknowledged = 0;
  const target: AppendTarget = {
    url: server.url,
    agent,
    refusals: [],
    onAcknowledged: () => {
      if (++acknowledged === killAt) server.process.child.kill('SIGKILL');
    },
  };
  try {
    const appenders = ledgers.map((ledger, index) => appendUntilFailure(target, ledger, random.fork(index)));
    await withDeadline(Promise.all(appenders), `${killAt} acknowledged appends, the SIGKILL, and every appender finding the node gone`);
    const exit = await server.process.stop('SIGKILL');
    return { acknowledged, refusals: target.refusals, signal: exit.signal };
  } finally {
    agent.destroy();
  }
}

/** Reads every stream from the node and checks it against its ledger. */
async function checkOverHttp(t: Test, server: RunningServer, ledgers: StreamLedger[], label: string): Promise<void> {
  const agent = new Agent({ keepAlive: true });
  const problems: string[] = [];
  try {
    for (const ledger of ledgers) problems.push(...ledger.check(await readStreamOverHttp(agent, server.url, ledger.streamName)));
  } finally {
    agent.destroy();
  }
  t.strictSame(problems, [], `${label}: every acknowledged event is there, in order, byte for byte; every event there was sent, in whole batches`);
}

function readStream(engine: Engine, stream: string): ReadEvent[] {
  const events: ReadEvent[] = [];
  for (;;) {
    const page = engine.readStreamForward(stream, events.length, READ_COUNT);
    events.push(...page.events);
    if (page.isEndOfStream || page.events.length === 0) return events;
  }
}

/** Events of $all in streams that are neither the node's own (`$…`) nor the test's. */
function strangersInAll(engine: Engine, streams: ReadonlySet<string>): { strangers: string[]; testEvents: number } {
  const strangers: string[] = [];
  let testEvents = 0;
  for (let position = 0; ;) {
    const page = engine.readAllForward(position, READ_COUNT);
    for (const event of page.events) {
      if (streams.has(event.streamName)) testEvents++;
      else if (!event.streamName.startsWith('$')) strangers.push(`${event.eventNumber}@${event.streamName}`);
    }
    if (page.isEnd || page.nextPosition <= position) return { strangers, testEvents };
    position = page.nextPosition;
  }
}

/** After a clean stop, the engine reads the log itself: the streams through the index, and $all. */
async function checkWithEngine(t: Test, dbPath: string, ledgers: StreamLedger[]): Promise<void> {
  const engine = await Engine.open({
    dbPath, indexPath: join(dbPath, '..', 'index'), verifyChunks: 'blocking',
    chunkSizeBytes: CHUNK_SIZE_BYTES, memTableEntriesMax: MEM_TABLE_ENTRIES, existenceFilterSizeBytes: EXISTENCE_FILTER_BYTES,
  });
  try {
    const problems: string[] = [];
    let streamEvents = 0;
    for (const ledger of ledgers) {
      const events = readStream(engine, ledger.streamName);
      streamEvents += events.length;
      problems.push(...ledger.check(events));
    }
    t.strictSame(problems, [], 'the engine reads the same events, byte for byte');
    const all = strangersInAll(engine, new Set(ledgers.map((ledger) => ledger.streamName)));
    t.strictSame(all.strangers, [], 'no event in $all that the test did not send');
    t.equal(all.testEvents, streamEvents, `$all holds the ${streamEvents} events of the streams, each once`);
    const { chunkCount } = engine.status();
    t.ok(chunkCount > 1, `the log crossed chunk boundaries (${chunkCount} chunks of ${CHUNK_SIZE_BYTES} bytes)`);
  } finally {
    // Closed here, not at teardown: the test directory goes away at teardown.
    await engine.close();
  }
}

t.test(`SIGKILL of svcdb serve under ${APPENDERS} concurrent HTTP appenders, ${KILLS} times, loses no acknowledged event and invents none`, async (t) => {
  const random = testRandom(t);
  const dbPath = join(t.testdir(), 'db');
  const ledgers = Array.from({ length: APPENDERS }, (_, index) => new StreamLedger(`crash-${index}`));
  let server = await startServer(t, { dbPath, args: SERVE_ARGS });
  let acknowledgedTotal = 0;
  let setBack = { kills: 0, bytes: 0 };
  for (let kill = 1; kill <= KILLS; kill++) {
    const round = random.fork(kill);
    const killAt = round.integer(ACKS_BEFORE_KILL_MIN, ACKS_BEFORE_KILL_MAX);
    // The end of the log as the start left it: durable, and a value writer.chk held.
    const atStart = readCheckpointFile(dbPath, CheckpointName.writer);
    const outcome = await appendAndKill(server, ledgers, round, killAt);
    acknowledgedTotal += outcome.acknowledged;
    t.strictSame(outcome.refusals, [], `kill ${kill}: the node refused none of the appends before it`);
    t.equal(outcome.signal, 'SIGKILL', `kill ${kill}, at 201 number ${killAt}: the node died of the SIGKILL (${outcome.acknowledged} 201s in all, the last read after it)`);
    if (kill % 2 === 0) {
      const bytes = setWriterBack(dbPath, atStart, CHUNK_SIZE_BYTES);
      setBack = { kills: setBack.kills + (bytes > 0 ? 1 : 0), bytes: setBack.bytes + bytes };
    }
    server = await startServer(t, { dbPath, args: SERVE_ARGS });
    await checkOverHttp(t, server, ledgers, `restart ${kill}`);
  }
  t.comment(`${acknowledgedTotal} appends acknowledged by ${APPENDERS} appenders over ${KILLS} kills`);
  t.comment(`writer.chk set back after ${setBack.kills} kills, by ${setBack.bytes} bytes of log in all`);
  t.ok(setBack.kills > 0 || KILLS < 2, 'some starts had to find acknowledged appends past writer.chk');
  t.equal((await server.process.stop('SIGTERM')).code, 0, 'the node started after the last kill stops cleanly');
  await checkWithEngine(t, dbPath, ledgers);
});
