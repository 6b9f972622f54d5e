/**
 * One scavenge as the service follows it: its id, its point, where it is, and the stop switch.
 * The observer's notifications land here (counted for GET /admin/scavenge/current, /stats and
 * /metrics) and are handed on to the history and the log.
 */
import type {
  ChunkExecutionReport, ChunkMergeReport, IndexExecutionReport, ScavengeObserver, ScavengePoint, ScavengeProgress, ScavengeStage,
} from '../../storage/maintenance/scavenge/types.js';

export type RunPhase = 'Beginning' | ScavengeStage;
export type ProgressUnit = NonNullable<ScavengeProgress['unit']>;

export interface RunStatus {
  scavengeId: string;
  phase: RunPhase;
  /** The point the run scavenges to; absent while it begins, and for a sync-only start with none to sync to. */
  point?: ScavengePoint;
  /** What `chunksDone` counts in this phase (chunks, streams, merges, index files). */
  unit: ProgressUnit;
  chunksDone: number;
  chunksTotal: number;
  /** Bytes of chunks and index files reclaimed so far. */
  spaceSaved: number;
  startedMs: number;
  stopRequested: boolean;
}

export interface RunReports {
  chunkExecuted(run: ScavengeRun, report: ChunkExecutionReport): void;
  chunksMerged(run: ScavengeRun, report: ChunkMergeReport): void;
  indexExecuted(run: ScavengeRun, report: IndexExecutionReport): void;
  stageStarted(run: ScavengeRun, stage: ScavengeStage): void;
}

export class ScavengeRun {
  readonly controller = new AbortController();
  phase: RunPhase = 'Beginning';
  point: ScavengePoint | undefined;
  unit: ProgressUnit = 'chunks';
  chunksDone = 0;
  chunksTotal = 0;
  spaceSaved = 0;
  maxChunkScavenged = -1;
  private markFinished!: () => void;
  /** Resolves once the run has ended and its completion is recorded, however it began. */
  readonly finished = new Promise<void>((resolve) => (this.markFinished = resolve));

  constructor(readonly scavengeId: string, readonly startedMs: number) {}

  /** Called once, when the run's end is recorded. */
  ended(): void {
    this.markFinished();
  }

  get stopRequested(): boolean {
    return this.controller.signal.aborted;
  }

  status(): RunStatus {
    const { scavengeId, phase, point, unit, chunksDone, chunksTotal, spaceSaved, startedMs, stopRequested } = this;
    return { scavengeId, phase, ...(point && { point }), unit, chunksDone, chunksTotal, spaceSaved, startedMs, stopRequested };
  }

  /** The observer handed to the scavenger: counts, then passes each report on. */
  observer(reports: RunReports): ScavengeObserver {
    return {
      stageStarted: (stage) => {
        this.phase = stage;
        reports.stageStarted(this, stage);
      },
      chunkExecuted: (report) => {
        if (report.wasScavenged) {
          this.spaceSaved += report.spaceSaved;
          this.maxChunkScavenged = Math.max(this.maxChunkScavenged, report.chunkEndNumber);
        }
        reports.chunkExecuted(this, report);
      },
      chunksMerged: (report) => {
        if (report.wasMerged) this.spaceSaved += report.spaceSaved;
        reports.chunksMerged(this, report);
      },
      indexExecuted: (report) => {
        if (report.wasScavenged) this.spaceSaved += report.spaceSaved;
        reports.indexExecuted(this, report);
      },
      progress: (progress: ScavengeProgress) => {
        this.phase = progress.stage;
        this.unit = progress.unit ?? 'chunks';
        this.chunksDone = progress.chunksDone;
        this.chunksTotal = progress.chunksTotal;
      },
    };
  }
}
