/**
 * The scavenger: one per node, on `<index>/scavenging/scavenging.db`. A run goes through the
 * stages Accumulating, Calculating, ExecutingChunks, MergingChunks, ExecutingIndex, Cleaning and
 * Done, saving the stage in the Checkpoint row (key 0) before it touches anything, so a stop or a
 * crash resumes at the saved stage. It holds the chunk-switch lock for the whole run.
 */
import type Database from 'better-sqlite3';
import { Errors } from '../../../common/errors.js';
import { silentLogger, type Logger } from '../../../common/logger.js';
import type { ChunkSwitchHold, ChunkSwitchHolderKind } from '../../log/chunk-switch-lock.js';
import type { ScavengeAccess } from './access.js';
import { accumulate } from './accumulation.js';
import { calculate } from './calculation.js';
import { executeChunks, type ExecutionTotals } from './chunk-execution.js';
import { clean } from './cleaning.js';
import type { RunContext } from './context.js';
import { executeIndex } from './index-execution.js';
import { mergeChunks } from './merging.js';
import { SCHEMA_VERSION, checkpointWal, openStateDb, readCheckpoint, writeCheckpoint, type CheckpointValue } from './state-db.js';
import { StreamData } from './stream-data.js';
import { StreamKeys } from './stream-keys.js';
import { Throttle } from './throttle.js';
import type {
  ScavengeCheckpoint, ScavengeOutcome, ScavengePoint, ScavengeRunOptions, ScavengeStage, Scavenger,
} from './types.js';
import { ChunkTables } from './weights.js';

export interface ScavengerOptions {
  /** `<index>/scavenging/scavenging.db`. */
  path: string;
  pageSizeBytes: number;
  cacheSizeBytes: number;
  hashUsersCacheCapacity: number;
  logger?: Logger;
}

/** What the scavenger needs of the engine (Engine has it): its scavenge access and the chunk-switch lock. */
export interface ScavengedStorage {
  scavengeAccess(): ScavengeAccess;
  takeChunkSwitchLock(kind: ChunkSwitchHolderKind): ChunkSwitchHold;
  releaseChunkSwitchLock(hold: ChunkSwitchHold): boolean;
}

const STAGES: readonly ScavengeStage[] = ['Accumulating', 'Calculating', 'ExecutingChunks', 'MergingChunks', 'ExecutingIndex', 'Cleaning', 'Done'];

export function openScavenger(engine: ScavengedStorage, options: ScavengerOptions): Scavenger {
  return new StateScavenger(engine, options);
}

class StateScavenger implements Scavenger {
  private readonly db: Database.Database;
  private readonly keys: StreamKeys;
  private readonly data: StreamData;
  private readonly chunks: ChunkTables;
  private readonly logger: Logger;
  private running = false;

  constructor(private readonly engine: ScavengedStorage, options: ScavengerOptions) {
    this.logger = (options.logger ?? silentLogger).child({ component: 'scavenge' });
    this.db = openStateDb(options);
    const access = engine.scavengeAccess();
    this.keys = new StreamKeys(this.db, (streamName) => access.streamHash(streamName), options.hashUsersCacheCapacity);
    this.data = new StreamData(this.db, this.keys);
    this.chunks = new ChunkTables(this.db);
  }

  checkpoint(): ScavengeCheckpoint | undefined {
    const value = readCheckpoint(this.db);
    return value === undefined ? undefined : { point: value.scavengePoint, stage: value.checkpointStage };
  }

  async run(options: ScavengeRunOptions): Promise<ScavengeOutcome> {
    if (this.running) throw new TypeError('a scavenge run is already in progress on this scavenger');
    const hold = this.engine.takeChunkSwitchLock('scavenge');
    this.running = true;
    try {
      return await this.runHolding(options, hold);
    } finally {
      this.running = false;
      this.engine.releaseChunkSwitchLock(hold);
    }
  }

  private async runHolding(options: ScavengeRunOptions, hold: ChunkSwitchHold): Promise<ScavengeOutcome> {
    const access = this.engine.scavengeAccess();
    const { point } = options;
    checkPoint(access, point);
    const saved = readCheckpoint(this.db);
    if (saved?.scavengePoint.number === point.number && saved.checkpointStage === 'Done') {
      return { result: 'Success', spaceSaved: 0, maxChunkScavenged: -1 };
    }
    const checkpoint = this.startingCheckpoint(saved, point);
    // Row 0 says a run is under way before any chunk or index file is touched (backups read it).
    writeCheckpoint(this.db, checkpoint);
    const pointChunk = Math.floor(point.position / access.chunkSizeBytes);
    await this.completePointChunk(access, pointChunk);
    if (this.keys.knownCollisions.length > 0) this.logger.info({ streams: this.keys.knownCollisions }, 'known stream hash collisions at the start of the scavenge');
    const context = this.context(access, options, hold, checkpoint, pointChunk);
    const outcome = await this.runStages(context);
    if (this.keys.knownCollisions.length > 0) this.logger.info({ streams: this.keys.knownCollisions }, 'known stream hash collisions at the end of the scavenge');
    return outcome;
  }

  /** Resumes a run to the same point at its stage; otherwise accumulates on from where the last one got. */
  private startingCheckpoint(saved: CheckpointValue | undefined, point: ScavengePoint): CheckpointValue {
    if (saved?.scavengePoint.number === point.number) return { ...saved, scavengePoint: point };
    return {
      scavengePoint: point, schemaVersion: SCHEMA_VERSION, checkpointStage: 'Accumulating', doneLogicalChunkNumber: -1,
      doneStreamHandle: '', accumulatedTo: saved?.accumulatedTo ?? 0,
    };
  }

  /** The point's chunk must be completed so that it can be executed; a crash may have left it ongoing. */
  private async completePointChunk(access: ScavengeAccess, pointChunk: number): Promise<void> {
    const file = access.chunkFiles().find((candidate) => candidate.startNumber <= pointChunk && candidate.endNumber >= pointChunk);
    if (file && !file.isCompleted) await access.completeActiveChunk();
  }

  private context(
    access: ScavengeAccess, options: ScavengeRunOptions, hold: ChunkSwitchHold, checkpoint: CheckpointValue, pointChunk: number,
  ): RunContext {
    const db = this.db;
    const observer = options.observer ?? {};
    let bytesReclaimed = 0;
    const context: RunContext = {
      access, db, keys: this.keys, data: this.data, chunks: this.chunks, point: options.point, pointChunk, options, hold,
      throttle: new Throttle(options.throttlePercent, options.signal, access), logger: this.logger, observer, checkpoint,
      saveCheckpoint: (change) => {
        Object.assign(checkpoint, change);
        writeCheckpoint(db, checkpoint);
      },
      transaction: (work) => db.transaction(work)(),
      shouldStop: () => options.signal.aborted,
      chunkOf: (position) => Math.floor(position / access.chunkSizeBytes),
      progress: (chunksDone, unit) => observer.progress?.({ stage: checkpoint.checkpointStage, unit, chunksDone, chunksTotal: pointChunk + 1, bytesReclaimed }),
      reclaimed: (bytes) => {
        bytesReclaimed += bytes;
      },
    };
    return context;
  }

  private enterStage(context: RunContext, stage: ScavengeStage): void {
    context.transaction(() => context.saveCheckpoint({ checkpointStage: stage, doneLogicalChunkNumber: -1, doneStreamHandle: '' }));
    checkpointWal(this.db);
    context.observer.stageStarted?.(stage);
    this.logger.info({ stage, scavengePoint: context.point.number }, 'scavenge stage started');
  }

  private async runStages(context: RunContext): Promise<ScavengeOutcome> {
    const totals: ExecutionTotals = { spaceSaved: 0, maxChunkScavenged: -1 };
    const stopped = (): ScavengeOutcome => {
      checkpointWal(this.db);
      return { result: 'Stopped', ...totals };
    };
    let stage = context.checkpoint.checkpointStage;
    const resumed = (name: ScavengeStage) => stage === name;
    const begin = (name: ScavengeStage) => {
      if (resumed(name)) {
        context.observer.stageStarted?.(name);
        return;
      }
      this.enterStage(context, name);
      stage = name;
    };
    const at = (name: ScavengeStage) => STAGES.indexOf(stage) <= STAGES.indexOf(name);

    if (at('Accumulating')) {
      begin('Accumulating');
      if (!(await accumulate(context))) return stopped();
    }
    if (at('Calculating')) {
      begin('Calculating');
      if (!(await calculate(context))) return stopped();
    }
    if (at('ExecutingChunks')) {
      begin('ExecutingChunks');
      if (!(await executeChunks(context, totals))) return stopped();
    }
    if (at('MergingChunks')) {
      begin('MergingChunks');
      if (context.options.mergeChunks) {
        const merged = await mergeChunks(context);
        totals.spaceSaved += merged.spaceSaved;
        if (!merged.completed) return stopped();
      }
    }
    if (at('ExecutingIndex')) {
      begin('ExecutingIndex');
      const indexed = await executeIndex(context);
      totals.spaceSaved += indexed.spaceSaved;
      if (!indexed.completed) return stopped();
    }
    await context.throttle.settle();
    begin('Cleaning');
    clean(context);
    this.enterStage(context, 'Done');
    return { result: 'Success', ...totals };
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

function checkPoint(access: ScavengeAccess, point: ScavengePoint): void {
  const problem =
    !Number.isSafeInteger(point.position) || point.position < 0 ? 'its position is not a log position'
      : point.position >= access.writerPosition() ? `its position ${point.position} is not in the log (which ends at ${access.writerPosition()})`
        : !Number.isSafeInteger(point.number) || point.number < 0 ? 'its number is not an event number'
          : !Number.isFinite(point.effectiveNowMs) ? 'its EffectiveNow is not a time'
            : !Number.isFinite(point.threshold) || point.threshold < -1 ? 'its threshold is below -1'
              : undefined;
  if (problem) throw Errors.invalidArgument.create('scavenge point', problem);
}
