/**
 * The node's scavenge: starts, stops and reports runs of the storage scavenger, one at a time.
 *
 * A start follows the reference's transition table: resume a stopped scavenge (its checkpoint is
 * not Done); else scavenge to the latest point if the last run has not reached it; else, unless
 * syncOnly, write a new point (which completes the active chunk) and scavenge to it. The
 * chunk-switch lock is held from the start on: here while the run begins, then by the scavenger,
 * which takes it in the same turn of the event loop as this releases it. So a redaction and a
 * scavenge exclude each other, and a start while a redaction holds it is refused at once.
 * Each run is recorded in `$scavenges-<id>` and `$scavenges` (scavenge-history.ts) and in the log.
 */
import { randomUUID } from 'node:crypto';
import { Errors, isSvcError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { Engine } from '../../storage/engine.js';
import type {
  ScavengeOutcome, ScavengePoint, Scavenger,
} from '../../storage/maintenance/scavenge/types.js';
import { ScavengeEventType, ScavengeHistory, type CompletedData, type HistoryStorage, type ScavengeResult } from './scavenge-history.js';
import { latestPoint, writePoint, type PointStorage } from './scavenge-points.js';
import { RunReporting } from './run-reporting.js';
import { ScavengeRun, type RunStatus } from './scavenge-run.js';
import type { ScavengeStartRequest } from './start-request.js';
import { timeSpanText } from './time-span.js';

export type ScavengeStorage = PointStorage & HistoryStorage & Pick<Engine, 'takeChunkSwitchLock' | 'releaseChunkSwitchLock'>;

export interface ScavengeServiceOptions {
  storage: ScavengeStorage;
  /** Opens the storage scavenger (and its state database) when the first run starts. */
  openScavenger: () => Scavenger;
  /** False with --disable-scavenge-merging. */
  mergeChunks: boolean;
  /** --scavenge-history-max-age, in days. */
  historyMaxAgeDays: number;
  /** The node's HTTP endpoint (`127.0.0.1:2113`), as the scavenge events name it. */
  nodeEndpoint: () => string;
  logger: Logger;
  clock?: () => number;
}

/** How the last run ended, for GET /admin/scavenge/{id} and the CLI's --wait. */
export interface FinishedRun extends CompletedData {
  phase: 'Completed';
}

export interface ScavengeCounters {
  started: number;
  succeeded: number;
  failed: number;
  stopped: number;
  lastSpaceSaved: number;
}

/** Finished runs remembered in memory; older ones are read back from their stream. */
const FINISHED_REMEMBERED_MAX = 16;

export class ScavengeService {
  private running: ScavengeRun | undefined;
  private readonly history: ScavengeHistory;
  private readonly finished = new Map<string, FinishedRun>();
  private readonly counters: ScavengeCounters = { started: 0, succeeded: 0, failed: 0, stopped: 0, lastSpaceSaved: 0 };
  private readonly clock: () => number;
  private closed = false;
  private opened: Scavenger | undefined;

  constructor(private readonly options: ScavengeServiceOptions) {
    this.history = new ScavengeHistory(options.storage, options.historyMaxAgeDays);
    this.clock = options.clock ?? Date.now;
  }

  /**
   * At the node's start: a run the node did not close (it crashed or was killed) is recorded as
   * Failed. Its checkpoint is not Done, so the next start resumes it.
   */
  async closeInterruptedRun(): Promise<void> {
    const scavengeId = this.history.openRun();
    if (scavengeId === undefined) return;
    const error = 'the node stopped while the scavenge ran (a crash or a kill); the next start resumes it';
    await this.history.record(scavengeId, ScavengeEventType.completed, this.completedData(scavengeId, 'Failed', error, 0, 0, -1));
    this.counters.failed++;
    this.options.logger.warn({ scavengeId }, 'a scavenge cut short by the node stopping is recorded as Failed');
  }

  /** Starts a run, or refuses: one is running, or a redaction holds the chunk-switch lock. */
  async start(request: ScavengeStartRequest): Promise<string> {
    if (this.closed) throw Errors.nodeShuttingDown.create();
    if (this.running) throw Errors.scavengeAlreadyRunning.create(this.running.scavengeId);
    const beginning = this.options.storage.takeChunkSwitchLock('scavenge');
    const run = new ScavengeRun(randomUUID(), this.clock());
    this.running = run;
    try {
      await this.history.prepare(run.scavengeId);
      await this.history.record(run.scavengeId, ScavengeEventType.started, { scavengeId: run.scavengeId, nodeEndpoint: this.options.nodeEndpoint() });
      this.counters.started++;
      run.point = await this.choosePoint(request);
    } catch (error) {
      // The run has not touched a chunk: it ends here, recorded as Failed if its start was recorded.
      this.options.storage.releaseChunkSwitchLock(beginning);
      await this.finish(run, { error });
      throw error;
    }
    this.options.logger.info({ scavengeId: run.scavengeId, point: run.point, ...request }, 'scavenge started');
    this.options.storage.releaseChunkSwitchLock(beginning);
    void this.execute(run, request);
    return run.scavengeId;
  }

  private get scavenger(): Scavenger {
    this.opened ??= this.options.openScavenger();
    return this.opened;
  }

  /** The transition table's Beginning: which point this run scavenges to, if any. */
  private async choosePoint(request: ScavengeStartRequest): Promise<ScavengePoint | undefined> {
    const checkpoint = this.scavenger.checkpoint();
    if (checkpoint && checkpoint.stage !== 'Done') {
      this.options.logger.info({ point: checkpoint.point, stage: checkpoint.stage }, 'resuming the stopped scavenge');
      return checkpoint.point;
    }
    const latest = latestPoint(this.options.storage);
    if (latest && (!checkpoint || latest.number > checkpoint.point.number)) {
      this.options.logger.info({ point: latest }, 'scavenging to the existing scavenge point, not reached yet');
      return latest;
    }
    if (request.syncOnly) {
      this.options.logger.info({ lastPoint: latest?.number ?? null }, 'no scavenge point to sync to and syncOnly is set: no point created, nothing to scavenge');
      return undefined;
    }
    const point = await writePoint(this.options.storage, request.threshold, latest);
    this.options.logger.info({ point }, 'wrote a new scavenge point and completed its chunk');
    return point;
  }

  /** Runs the scavenger; its first step (synchronous) takes the chunk-switch lock just released. */
  private async execute(run: ScavengeRun, request: ScavengeStartRequest): Promise<void> {
    if (!run.point) {
      await this.finish(run, { outcome: { result: 'Success', spaceSaved: 0, maxChunkScavenged: -1 } });
      return;
    }
    const reporting = new RunReporting(this.history, this.options.logger, this.options.nodeEndpoint, run.point.threshold);
    let outcome: ScavengeOutcome | undefined;
    let failure: unknown;
    try {
      outcome = await this.scavenger.run({
        point: run.point, threads: request.threads, throttlePercent: request.throttlePercent, mergeChunks: this.options.mergeChunks,
        signal: run.controller.signal, observer: run.observer(reporting),
      });
    } catch (error) {
      failure = error;
    }
    await reporting.settled();
    await this.finish(run, outcome ? { outcome } : { error: failure });
  }

  /** Records how a run ended and frees the slot for the next run. */
  private async finish(run: ScavengeRun, end: { outcome?: ScavengeOutcome; error?: unknown }): Promise<void> {
    const result: ScavengeResult = end.outcome?.result ?? 'Failed';
    const errorText = end.outcome ? null : describe(end.error);
    const spaceSaved = end.outcome?.spaceSaved ?? run.spaceSaved;
    const maxChunk = end.outcome?.maxChunkScavenged ?? run.maxChunkScavenged;
    const data = this.completedData(run.scavengeId, result, errorText, this.clock() - run.startedMs, spaceSaved, maxChunk);
    const log = this.options.logger;
    try {
      if (this.history.exists(run.scavengeId)) await this.history.record(run.scavengeId, ScavengeEventType.completed, data);
    } catch (error) {
      log.error({ err: error, scavengeId: run.scavengeId }, 'the scavenge\'s completion could not be recorded in $scavenges');
    } finally {
      this.running = undefined;
    }
    this.remember({ ...data, phase: 'Completed' });
    this.count(result, spaceSaved);
    const fields = { scavengeId: run.scavengeId, result, spaceSaved, maxChunkScavenged: maxChunk, timeTaken: data.timeTaken };
    if (result === 'Failed') log.error({ ...fields, err: end.error }, 'scavenge failed');
    else log.info(fields, result === 'Stopped' ? 'scavenge stopped' : 'scavenge completed');
    run.ended();
  }

  private completedData(
    scavengeId: string, result: ScavengeResult, error: string | null, timeTakenMs: number, spaceSaved: number, maxChunkScavenged: number,
  ): CompletedData {
    return {
      scavengeId, nodeEndpoint: this.options.nodeEndpoint(), result, error, timeTaken: timeSpanText(timeTakenMs), spaceSaved, maxChunkScavenged,
    };
  }

  private remember(run: FinishedRun): void {
    this.finished.set(run.scavengeId, run);
    if (this.finished.size > FINISHED_REMEMBERED_MAX) this.finished.delete(this.finished.keys().next().value!);
  }

  private count(result: ScavengeResult, spaceSaved: number): void {
    if (result === 'Success') this.counters.succeeded++;
    else if (result === 'Failed') this.counters.failed++;
    else this.counters.stopped++;
    this.counters.lastSpaceSaved = spaceSaved;
  }

  /** The running scavenge, if any. */
  current(): RunStatus | undefined {
    return this.running?.status();
  }

  /** A run by id: the running one, or how a finished one ended; undefined when there is no such run. */
  status(scavengeId: string): RunStatus | FinishedRun | undefined {
    if (this.running?.scavengeId === scavengeId) return this.running.status();
    const finished = this.finished.get(scavengeId) ?? this.history.completion(scavengeId);
    return finished && { ...finished, phase: 'Completed' };
  }

  /** Stops the running scavenge (`current` or its id) and resolves once it has stopped; 404 for any other id. */
  async stop(scavengeId: string): Promise<string> {
    const run = this.running;
    if (!run || (scavengeId !== 'current' && scavengeId !== run.scavengeId)) throw Errors.scavengeNotFound.create(scavengeId);
    if (!run.stopRequested) this.options.logger.info({ scavengeId: run.scavengeId }, 'scavenge stop requested');
    run.controller.abort();
    await run.finished;
    return run.scavengeId;
  }

  counts(): Readonly<ScavengeCounters> {
    return this.counters;
  }

  /** At the node's stop: a running scavenge stops at its next safe place and is recorded as Stopped. */
  async close(): Promise<void> {
    this.closed = true;
    const run = this.running;
    if (run) {
      run.controller.abort();
      await run.finished;
    }
    this.opened?.close();
  }
}

function describe(error: unknown): string {
  if (isSvcError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
