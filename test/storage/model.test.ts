import t from 'tap';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Engine } from '../../src/storage/engine.js';
import { StreamDecider } from '../../src/storage/streams/decider.js';
import { DELETED_EVENT_NUMBER, METADATA_EVENT_TYPE, TOMBSTONE_EVENT_TYPE } from '../../src/storage/streams/stream-metadata.js';
import type { NewEvent, WriteRequest } from '../../src/storage/streams/write-types.js';
import { newEvents, openEngine } from '../helpers/engine.js';
import { testSeed } from '../helpers/random.js';
import { MemoryStreams, commitRequests } from '../helpers/stream-state.js';

/** The whole behaviour of a stream, kept simply: every id ever written, and its metadata. */
interface ModelStream {
  ids: string[];
  hardDeleted: boolean;
  /** `$tb` is Infinity after a soft delete (9223372036854775807 in the engine). */
  metadata: { $tb?: number; $maxCount?: number };
  /** Whether the metadata stream has events: a stream with only metadata exists. */
  metadataWritten: boolean;
}

type Command =
  | { kind: 'append'; stream: number; expected: 'any' | 'noStream' | 'exists' | 'exact' | 'wrong'; count: number }
  | { kind: 'softDelete'; stream: number }
  | { kind: 'hardDelete'; stream: number }
  | { kind: 'maxCount'; stream: number; maxCount: number }
  | { kind: 'reopen' };

const STREAMS = ['alpha', 'beta', 'gamma'];

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('append' as const), stream: fc.nat(2), expected: fc.constantFrom('any', 'noStream', 'exists', 'exact', 'wrong'), count: fc.integer({ min: 1, max: 12 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('softDelete' as const), stream: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('hardDelete' as const), stream: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('maxCount' as const), stream: fc.nat(2), maxCount: fc.integer({ min: 1, max: 20 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reopen' as const }) },
);

function last(model: ModelStream): number {
  return model.ids.length - 1;
}

function expectedVersionFor(model: ModelStream, expected: string): number {
  switch (expected) {
    case 'any': return -2;
    case 'noStream': return -1;
    case 'exists': return -4;
    case 'exact': return last(model);
    default: return last(model) + 3;
  }
}

function appendAccepted(model: ModelStream, expectedVersion: number): boolean {
  const current = last(model);
  const truncatedPastEnd = (model.metadata.$tb ?? -1) > current;
  if (expectedVersion === -4) return model.metadata.$tb !== Infinity && (current >= 0 || model.metadataWritten);
  return expectedVersion === -2 || (expectedVersion === -1 && (current === -1 || truncatedPastEnd)) || expectedVersion === current;
}

function visibleIds(model: ModelStream): string[] | 'notFound' | 'deleted' {
  if (model.hardDeleted) return 'deleted';
  const current = last(model);
  const firstVisible = Math.max(model.metadata.$tb ?? 0, model.metadata.$maxCount === undefined ? 0 : current - model.metadata.$maxCount + 1);
  if (current < 0 || model.metadata.$tb === Infinity) return 'notFound';
  return model.ids.slice(firstVisible);
}

/** The stream rules alone: a decider over stream state in plain maps, given the same requests as the engine. */
interface Direct {
  decider: StreamDecider;
  streams: MemoryStreams;
}

const RECENT_IDS_MAX = 1000;

function directDecider(streams = new MemoryStreams()): Direct {
  return { decider: new StreamDecider(streams, RECENT_IDS_MAX, () => Date.now()), streams };
}

/** An event of no data, as the engine makes a tombstone or a metadata event. */
function systemEvent(eventType: string, data: Buffer, isJson: boolean): NewEvent {
  return { eventId: randomUUID(), eventType, data, metadata: Buffer.alloc(0), isJson };
}

async function apply(engine: Engine, direct: Direct, models: ModelStream[], cmd: Exclude<Command, { kind: 'reopen' }>): Promise<void> {
  const model = models[cmd.stream];
  const name = STREAMS[cmd.stream];
  const outcome = await (async () => {
    if (cmd.kind === 'append') {
      const expectedVersion = expectedVersionFor(model, cmd.expected);
      const events = newEvents(cmd.count);
      const accepted = !model.hardDeleted && appendAccepted(model, expectedVersion);
      if (accepted && model.metadata.$tb === Infinity) {
        // The first append after a soft delete truncates before its first event.
        model.metadata = { ...model.metadata, $tb: model.ids.length };
        model.metadataWritten = true;
      }
      if (accepted) model.ids.push(...events.map((e) => e.eventId));
      const request: WriteRequest = { kind: 'append', streamName: name, expectedVersion, events };
      return [accepted, engine.append(name, expectedVersion, events), request] as const;
    }
    if (cmd.kind === 'softDelete') {
      const accepted = !model.hardDeleted;
      if (accepted) model.metadata = { ...model.metadata, $tb: Infinity };
      if (accepted) model.metadataWritten = true;
      const request: WriteRequest = { kind: 'softDelete', streamName: name, expectedVersion: -2, events: [] };
      return [accepted, engine.deleteStream(name, -2, false), request] as const;
    }
    if (cmd.kind === 'hardDelete') {
      const accepted = !model.hardDeleted;
      model.hardDeleted = true;
      const tombstone = systemEvent(TOMBSTONE_EVENT_TYPE, Buffer.alloc(0), false);
      const request: WriteRequest = { kind: 'hardDelete', streamName: name, expectedVersion: -2, events: [tombstone] };
      return [accepted, engine.deleteStream(name, -2, true), request] as const;
    }
    const accepted = !model.hardDeleted;
    // Metadata written to a soft-deleted stream undeletes it: $tb is set past its last event.
    if (accepted) model.metadata = model.metadata.$tb === Infinity ? { $maxCount: cmd.maxCount, $tb: model.ids.length } : { $maxCount: cmd.maxCount };
    if (accepted) model.metadataWritten = true;
    const metadata = systemEvent(METADATA_EVENT_TYPE, Buffer.from(JSON.stringify({ $maxCount: cmd.maxCount })), true);
    const request: WriteRequest = { kind: 'append', streamName: `$$${name}`, expectedVersion: -2, events: [metadata] };
    return [accepted, engine.setStreamMetadata(name, -2, { $maxCount: cmd.maxCount }), request] as const;
  })();
  const [accepted, promise, request] = outcome;
  const succeeded = await promise.then(() => true, () => false);
  if (succeeded !== accepted) throw new Error(`${JSON.stringify(cmd)}: engine ${succeeded ? 'accepted' : 'refused'}, model ${accepted ? 'accepts' : 'refuses'}`);
  const decided = commitRequests(direct.decider, direct.streams, [request])[0].kind !== 'refused';
  if (decided !== accepted) throw new Error(`${JSON.stringify(cmd)}: decider ${decided ? 'accepted' : 'refused'}, model ${accepted ? 'accepts' : 'refuses'}`);
}

/** The decider's streams hold every id the model wrote, with the metadata it says. */
function compareDirect(direct: Direct, models: ModelStream[], step: string): void {
  models.forEach((model, i) => {
    const name = STREAMS[i];
    if (model.hardDeleted) {
      if (direct.streams.lastEventNumber(name) !== DELETED_EVENT_NUMBER) throw new Error(`${step}: the decider did not delete ${name}`);
      return;
    }
    const { truncateBefore, maxCount } = direct.streams.metadata(name);
    const actual = { ids: direct.streams.ids(name), $tb: truncateBefore === DELETED_EVENT_NUMBER ? Infinity : truncateBefore, $maxCount: maxCount };
    const expected = { ids: model.ids, $tb: model.metadata.$tb, $maxCount: model.metadata.$maxCount };
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      throw new Error(`${step}: the decider's ${name} is ${JSON.stringify(actual)}, model says ${JSON.stringify(expected)}`);
    }
  });
}

function compare(engine: Engine, models: ModelStream[], step: string): void {
  models.forEach((model, i) => {
    const page = engine.readStreamForward(STREAMS[i], 0, 4096);
    const actual = page.status === 'success' ? page.events.map((e) => e.eventId) : page.status;
    const expected = visibleIds(model);
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      throw new Error(`${step}: ${STREAMS[i]} reads ${JSON.stringify(actual)}, model says ${JSON.stringify(expected)}`);
    }
  });
}

t.test('random appends, deletes and metadata match a simple model, in the engine and in the stream decider alone, before and after reopening', async (t) => {
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(command, { minLength: 5, maxLength: 40 }), async (commands) => {
      const directory = mkdtempSync(join(tmpdir(), 'svcdb-model-'));
      let engine = await openEngine(directory, { memTableEntriesMax: 16, chunkSizeBytes: 64 * 1024 });
      let direct = directDecider();
      try {
        const models: ModelStream[] = STREAMS.map(() => ({ ids: [], hardDeleted: false, metadata: {}, metadataWritten: false }));
        for (const [step, cmd] of commands.entries()) {
          if (cmd.kind === 'reopen') {
            await engine.close();
            engine = await openEngine(directory, { memTableEntriesMax: 16, chunkSizeBytes: 64 * 1024 });
            // A reopened engine forgets its recent ids: so does a new decider over the same streams.
            direct = directDecider(direct.streams);
          } else {
            await apply(engine, direct, models, cmd);
          }
          compare(engine, models, `step ${step} ${cmd.kind}`);
          compareDirect(direct, models, `step ${step} ${cmd.kind}`);
        }
        await engine.close();
        engine = await openEngine(directory, { memTableEntriesMax: 16, chunkSizeBytes: 64 * 1024 });
        compare(engine, models, 'after the final reopen');
        runs++;
      } finally {
        await engine.close();
        rmSync(directory, { recursive: true, force: true });
      }
    }),
    { numRuns: 40, seed: testSeed(t) },
  );
  t.equal(runs, 40, 'every generated scenario ran and matched');
});
