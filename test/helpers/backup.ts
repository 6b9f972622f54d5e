/**
 * Shared by the backup and restore tests: the CLI with --json, a load of concurrent appenders
 * that remembers what was acknowledged, and the checks a restored node must pass.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Test } from 'tap';
import type { Engine } from '../../src/storage/engine.js';
import type { EventRecord } from '../../src/storage/log/record.js';
import { runCli, type CliExit } from './cli.js';
import { withDeadline } from './wait.js';

export interface JsonRun<T = Record<string, unknown>> {
  exit: CliExit;
  code: number | null;
  /** stdout parsed: the command's result, or {error: {...}} when it failed. */
  json: T & { error?: { code: string; message: string; exitCode: number; details: Record<string, unknown> } };
}

/** Runs `svcdb <args> --json` as a child process and parses its output. */
export async function runJson<T = Record<string, unknown>>(args: readonly string[]): Promise<JsonRun<T>> {
  const exit = await runCli([...args, '--json']);
  let json: JsonRun<T>['json'];
  try {
    json = JSON.parse(exit.stdout) as JsonRun<T>['json'];
  } catch {
    throw new Error(`svcdb ${args.join(' ')} printed no JSON (exit ${exit.code}):\n${exit.stdout}\n${exit.stderr}`);
  }
  return { exit, code: exit.code, json };
}

export function dataArgs(directory: string): string[] {
  return ['--db', join(directory, 'db'), '--index', join(directory, 'index')];
}

export interface BackupJson {
  kind: string;
  nodeId: string;
  writerAtStart: number;
  checkpoints: Record<string, number>;
  filesCopied: number;
  filesSkipped: number;
  filesRemoved: number;
  bytesCopied: number;
  copied: Array<{ file: string; bytes: number }>;
  skipped: string[];
  removed: string[];
  warnings: string[];
}

/** How many events of each stream were acknowledged. */
export type Acknowledged = Map<string, number>;

/**
 * Appenders that keep writing to their own streams until stopped, each append with the exact
 * expected version, and count what was acknowledged. Each pauses `pauseMs` between appends: a
 * steady load that keeps the log growing during a backup without making thousands of events to
 * check afterwards (pacing, not waiting for anything).
 */
export class AppendLoad {
  readonly acknowledged: Acknowledged = new Map();
  private total = 0;
  private stopping = false;
  private readonly loops: Promise<void>[];
  private waiters: Array<{ count: number; resolve: () => void }> = [];

  constructor(private readonly engine: Engine, readonly streams: string[], private readonly pauseMs = 5, private readonly batchMax = 4) {
    this.loops = streams.map((stream) => this.loop(stream));
  }

  get count(): number {
    return this.total;
  }

  /** A copy of what was acknowledged so far. */
  snapshot(): Acknowledged {
    return new Map(this.acknowledged);
  }

  /** Resolves once `count` events in all were acknowledged. */
  reached(count: number): Promise<void> {
    if (this.total >= count) return Promise.resolve();
    const reached = new Promise<void>((resolve) => this.waiters.push({ count, resolve }));
    return withDeadline(reached, `${count} events acknowledged to the load (${this.total} when the wait began)`);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await withDeadline(Promise.all(this.loops), 'the load\'s appenders to finish their last append');
  }

  private async loop(stream: string): Promise<void> {
    let last = -1;
    for (let round = 0; !this.stopping; round++) {
      const size = 1 + (round % this.batchMax);
      const events = Array.from({ length: size }, (_, i) => ({
        eventId: randomUUID(), eventType: 'Load', data: Buffer.from(JSON.stringify({ stream, n: last + 1 + i, pad: 'p'.repeat(200) })),
        metadata: Buffer.alloc(0), isJson: true,
      }));
      last = (await this.engine.append(stream, last, events)).lastEventNumber;
      this.acknowledged.set(stream, last + 1);
      this.total += size;
      this.waiters = this.waiters.filter((waiter) => {
        if (this.total < waiter.count) return true;
        waiter.resolve();
        return false;
      });
      await new Promise((resolve) => setTimeout(resolve, this.pauseMs));
    }
  }
}

export function readStream(engine: Engine, stream: string): EventRecord[] {
  const events: EventRecord[] = [];
  for (let from = 0; ;) {
    const page = engine.readStreamForward(stream, from, 4096);
    events.push(...page.events);
    if (page.isEndOfStream || page.events.length === 0) return events;
    from = page.nextEventNumber;
  }
}

export function readAll(engine: Engine): EventRecord[] {
  const events: EventRecord[] = [];
  for (let position = 0; ;) {
    const page = engine.readAllForward(position, 4096);
    events.push(...page.events);
    if (page.isEnd || page.events.length === 0) return events;
    position = page.nextPosition;
  }
}

/**
 * What a node restored from a backup must show: every event acknowledged before the backup
 * started, in order and as the source has it; an index that agrees with the log; and appends
 * that continue each stream's numbering.
 */
export async function checkRestoredNode(t: Test, restored: Engine, source: Engine, before: Acknowledged): Promise<void> {
  let missing = 0;
  let different = 0;
  for (const [stream, acknowledgedCount] of before) {
    const copy = readStream(restored, stream);
    const original = readStream(source, stream);
    if (copy.length < acknowledgedCount) missing += acknowledgedCount - copy.length;
    copy.forEach((event, number) => {
      const same = event.eventNumber === number && event.eventId === original[number]?.eventId && event.data.equals(original[number].data);
      if (!same) different++;
    });
  }
  t.equal(missing, 0, 'every event acknowledged before the backup started is there');
  t.equal(different, 0, 'each stream holds the source\'s events, in order, numbered from 0');

  const perStream = new Map<string, number>();
  let unindexed = 0;
  for (const event of readAll(restored)) {
    perStream.set(event.streamName, (perStream.get(event.streamName) ?? 0) + 1);
    const read = restored.readEvent(event.streamName, event.eventNumber);
    if (read.event?.eventId !== event.eventId || read.event.logPosition !== event.logPosition) unindexed++;
  }
  t.equal(unindexed, 0, 'every event of $all is found through the index at its position');
  for (const stream of before.keys()) {
    t.equal(readStream(restored, stream).length, perStream.get(stream) ?? 0, `${stream}: the index and $all agree`);
  }

  for (const stream of before.keys()) {
    const last = restored.readStreamBackward(stream, -1, 1).lastEventNumber;
    const result = await restored.append(stream, last, [{ eventId: randomUUID(), eventType: 'After', data: Buffer.from('{}'), metadata: Buffer.alloc(0), isJson: true }]);
    t.equal(result.firstEventNumber, last + 1, `${stream}: an append continues the numbering at ${last + 1}`);
  }
}
