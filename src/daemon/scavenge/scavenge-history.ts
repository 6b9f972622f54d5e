/**
 * The record of each scavenge in the log: `$scavenges-<id>` gets `$scavengeStarted`, an event per
 * chunk, merge and index file executed, and `$scavengeCompleted`; the started and completed
 * events are linked (`$>`, `n@$scavenges-<id>`) into `$scavenges`. Both streams keep
 * `--scavenge-history-max-age` of history and are readable by `$ops` (and admins).
 */
import { randomUUID } from 'node:crypto';
import type { Engine } from '../../storage/engine.js';
import type { EventRecord } from '../../storage/log/record.js';

export const SCAVENGES_STREAM = '$scavenges';
export const LINK_EVENT_TYPE = '$>';

export const ScavengeEventType = {
  started: '$scavengeStarted',
  chunksCompleted: '$scavengeChunksCompleted',
  mergeCompleted: '$scavengeMergeCompleted',
  indexCompleted: '$scavengeIndexCompleted',
  completed: '$scavengeCompleted',
} as const;

export type ScavengeResult = 'Success' | 'Failed' | 'Stopped';

export interface CompletedData {
  scavengeId: string;
  nodeEndpoint: string;
  result: ScavengeResult;
  error: string | null;
  timeTaken: string;
  spaceSaved: number;
  maxChunkScavenged: number;
}

export type HistoryStorage = Pick<Engine, 'append' | 'setStreamMetadata' | 'getStreamMetadata' | 'readEvent' | 'readStreamBackward'>;

const SECONDS_PER_DAY = 86_400;

export function scavengeStreamOf(scavengeId: string): string {
  return `${SCAVENGES_STREAM}-${scavengeId}`;
}

function jsonEvent(eventType: string, data: unknown) {
  return { eventId: randomUUID(), eventType, data: Buffer.from(JSON.stringify(data)), metadata: Buffer.alloc(0), isJson: true };
}

function parseJson(event: EventRecord): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(event.data.toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null ? value as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
}

export class ScavengeHistory {
  private readonly metadata: Record<string, unknown>;

  constructor(private readonly storage: HistoryStorage, historyMaxAgeDays: number) {
    this.metadata = {
      $maxAge: historyMaxAgeDays * SECONDS_PER_DAY,
      $acl: { $r: ['$ops'], $w: [], $d: [], $mr: [], $mw: [] },
    };
  }

  /** Sets the history metadata of `$scavenges-<id>`, and of `$scavenges` when it differs. */
  async prepare(scavengeId: string): Promise<void> {
    const current = this.storage.getStreamMetadata(SCAVENGES_STREAM).metadata as { maxAgeSeconds?: number };
    if (current.maxAgeSeconds !== this.metadata.$maxAge) await this.storage.setStreamMetadata(SCAVENGES_STREAM, -2, this.metadata);
    await this.storage.setStreamMetadata(scavengeStreamOf(scavengeId), -2, this.metadata);
  }

  /** Appends one event to `$scavenges-<id>`; the started and completed ones are linked into `$scavenges`. */
  async record(scavengeId: string, eventType: string, data: unknown): Promise<void> {
    const stream = scavengeStreamOf(scavengeId);
    const written = await this.storage.append(stream, -2, [jsonEvent(eventType, data)]);
    if (eventType !== ScavengeEventType.started && eventType !== ScavengeEventType.completed) return;
    const link = Buffer.from(`${written.firstEventNumber}@${stream}`);
    await this.storage.append(SCAVENGES_STREAM, -2, [
      { eventId: randomUUID(), eventType: LINK_EVENT_TYPE, data: link, metadata: Buffer.alloc(0), isJson: false },
    ]);
  }

  /** The event the last link of `$scavenges` points to: the latest run's start or its end. */
  private lastLinked(): EventRecord | undefined {
    const page = this.storage.readStreamBackward(SCAVENGES_STREAM, -1, 1);
    const link = page.events[0];
    if (page.status !== 'success' || !link || link.eventType !== LINK_EVENT_TYPE) return undefined;
    const match = /^(\d+)@(.+)$/.exec(link.data.toString('utf8'));
    if (!match) return undefined;
    return this.storage.readEvent(match[2], Number(match[1])).event;
  }

  /**
   * The id of a run that started and never completed (the node stopped without closing it: a
   * crash or a kill). Runs are one at a time, so only the latest can be open.
   */
  openRun(): string | undefined {
    const event = this.lastLinked();
    if (event?.eventType !== ScavengeEventType.started) return undefined;
    const scavengeId = parseJson(event)?.scavengeId;
    return typeof scavengeId === 'string' ? scavengeId : undefined;
  }

  /** The `$scavengeCompleted` data of a run, if it has completed. */
  completion(scavengeId: string): CompletedData | undefined {
    const page = this.storage.readStreamBackward(scavengeStreamOf(scavengeId), -1, 1);
    const event = page.events[0];
    if (page.status !== 'success' || event?.eventType !== ScavengeEventType.completed) return undefined;
    return parseJson(event) as CompletedData | undefined;
  }

  /** Whether `$scavenges-<id>` holds any event: the run exists (or existed within the history's age). */
  exists(scavengeId: string): boolean {
    return this.storage.readStreamBackward(scavengeStreamOf(scavengeId), -1, 1).events.length > 0;
  }
}
