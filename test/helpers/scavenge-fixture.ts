/**
 * A database where every discard rule has something to remove, and the model of what a scavenge
 * keeps, written from the rules (not from the scavenger): $tb, $maxCount, $maxAge (with a clock
 * the test moves), hard and soft deletes, a revived stream, metadata written many times, and a
 * stream no rule touches. Events carry padding so that the log spans several small chunks.
 */
import type { Engine } from '../../src/storage/engine.js';
import { EventFlags, type EventRecord } from '../../src/storage/log/record.js';
import type { NewEvent } from '../../src/storage/streams/write-types.js';
import type { ScavengePoint } from '../../src/storage/maintenance/scavenge/types.js';
import type { TestRandom } from './random.js';

export const FIXTURE_STREAMS = ['truncated', 'counted', 'aged', 'hard', 'soft', 'plain', 'meta-many', 'revived'] as const;
export const HOUR_MS = 3600 * 1000;

export class Clock {
  constructor(public nowMs: number) {}
  readonly now = (): number => this.nowMs;
}

function fixtureEvent(random: TestRandom, index: number): NewEvent {
  const body = { index, pad: 'p'.repeat(600 + (random.word() % 400)) };
  return { eventId: random.uuid(), eventType: 'Fixture', data: Buffer.from(JSON.stringify(body)), metadata: Buffer.alloc(0), isJson: true };
}

async function appendMany(engine: Engine, random: TestRandom, stream: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 5) await engine.append(stream, -2, Array.from({ length: Math.min(5, count - i) }, (_, j) => fixtureEvent(random, i + j)));
}

/** Writes the fixture; the clock ends two hours after it began. */
export async function writeFixture(engine: Engine, random: TestRandom, clock: Clock): Promise<void> {
  await appendMany(engine, random, 'aged', 30);
  for (const stream of ['truncated', 'counted', 'plain']) await appendMany(engine, random, stream, 30);
  await appendMany(engine, random, 'hard', 40);
  await appendMany(engine, random, 'soft', 40);
  await appendMany(engine, random, 'revived', 20);
  for (let i = 0; i < 5; i++) {
    await engine.setStreamMetadata('meta-many', -2, { custom: i }, random.uuid());
    await appendMany(engine, random, 'meta-many', 2);
  }
  clock.nowMs += 2 * HOUR_MS;
  for (const stream of ['aged', 'truncated', 'counted', 'plain']) await appendMany(engine, random, stream, 30);
  await engine.setStreamMetadata('truncated', -2, { $tb: 40 }, random.uuid());
  await engine.setStreamMetadata('counted', -2, { $maxCount: 5 }, random.uuid());
  await engine.setStreamMetadata('aged', -2, { $maxAge: 3600 }, random.uuid());
  await engine.deleteStream('hard', -2, true);
  await engine.deleteStream('soft', -2, false);
  await engine.deleteStream('revived', -2, false);
  await appendMany(engine, random, 'revived', 10);
  clock.nowMs += 60_000;
}

/** Whether a scavenge to `point` keeps `event`, given every event of $all before it. */
export function fixtureKeeps(event: EventRecord, all: readonly EventRecord[], point: ScavengePoint): boolean {
  if (event.logPosition >= point.position) return true;
  const lastOf = (stream: string) => Math.max(...all.filter((other) => other.streamName === stream && other.logPosition < point.position).map((other) => other.eventNumber));
  const isLast = event.eventNumber === lastOf(event.streamName);
  switch (event.streamName) {
    case 'truncated': return event.eventNumber >= 40;
    case 'counted': return event.eventNumber > lastOf('counted') - 5;
    case 'aged': return isLast || event.timestamp >= point.effectiveNowMs - HOUR_MS;
    case 'hard': return (event.flags & EventFlags.streamDelete) !== 0;
    case '$$hard': return false;
    case 'soft': return isLast;
    // Revived at 20: $tb 20 hides the events before it.
    case 'revived': return event.eventNumber >= 20;
    default: return !event.streamName.startsWith('$$') || isLast;
  }
}
