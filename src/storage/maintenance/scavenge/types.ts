/**
 * The contract between the scavenge engine (this folder, storage layer) and the daemon service
 * that drives and reports it (src/daemon/scavenge/). The engine knows chunks, the index and
 * `scavenging.db`; the service knows HTTP, `$scavengePoints`, `$scavenges-<id>`, stats and logs.
 */

/** A scavenge point: the `$scavengePoint` event of `$scavengePoints` a run scavenges up to. */
export interface ScavengePoint {
  /** Its event number in `$scavengePoints` (the reference's `SP-<n>`). */
  readonly number: number;
  /** Its log position: the run scavenges everything before it (exclusive). */
  readonly position: number;
  /** Its timestamp (ms since the epoch): the "now" that `$maxAge` is measured against. */
  readonly effectiveNowMs: number;
  /** Minimum chunk weight to rewrite a chunk: -1 every chunk, 0 any weight > 0, N weight > N. */
  readonly threshold: number;
}

/** Stages as saved in the Checkpoint row's `checkpointStage` (the backup reads "Done"). */
export type ScavengeStage =
  | 'Accumulating' | 'Calculating' | 'ExecutingChunks' | 'MergingChunks' | 'ExecutingIndex' | 'Cleaning' | 'Done';

/** What `scavenging.db` says about the last run: nothing yet, or its point and stage. */
export interface ScavengeCheckpoint {
  readonly point: ScavengePoint;
  readonly stage: ScavengeStage;
}

export interface ChunkExecutionReport {
  readonly chunkStartNumber: number;
  readonly chunkEndNumber: number;
  readonly weight: number;
  readonly timeTakenMs: number;
  readonly wasScavenged: boolean;
  readonly spaceSaved: number;
  readonly errorMessage?: string;
}

export interface ChunkMergeReport {
  readonly chunkStartNumber: number;
  readonly chunkEndNumber: number;
  readonly timeTakenMs: number;
  readonly wasMerged: boolean;
  readonly spaceSaved: number;
  readonly errorMessage?: string;
}

export interface IndexExecutionReport {
  readonly level: number;
  readonly index: number;
  readonly timeTakenMs: number;
  readonly entriesDeleted: number;
  readonly entriesKept: number;
  readonly spaceSaved: number;
  readonly wasScavenged: boolean;
  readonly errorMessage?: string;
}

export interface ScavengeProgress {
  readonly stage: ScavengeStage;
  /**
   * What `chunksDone` counts in this stage: the logical chunk reached (Accumulating), chunk files
   * executed (ExecutingChunks), streams calculated, merges made, index files scavenged.
   */
  readonly unit?: 'chunks' | 'streams' | 'merges' | 'indexFiles';
  readonly chunksDone: number;
  /** Logical chunks up to the point's chunk: the total of the chunk stages. */
  readonly chunksTotal: number;
  readonly bytesReclaimed: number;
}

/** Told as the run goes; calls are synchronous notifications and must not throw. */
export interface ScavengeObserver {
  stageStarted?(stage: ScavengeStage): void;
  chunkExecuted?(report: ChunkExecutionReport): void;
  chunksMerged?(report: ChunkMergeReport): void;
  indexExecuted?(report: IndexExecutionReport): void;
  progress?(progress: ScavengeProgress): void;
}

export interface ScavengeRunOptions {
  readonly point: ScavengePoint;
  /** 1–4 chunks executed in parallel. */
  readonly threads: number;
  /** 1–100: share of the time the run is active (100 with threads > 1). */
  readonly throttlePercent: number;
  /** False with --disable-scavenge-merging. */
  readonly mergeChunks: boolean;
  /** Aborting stops the run at the next safe place; the checkpoint keeps where it got. */
  readonly signal: AbortSignal;
  readonly observer?: ScavengeObserver;
}

export type ScavengeOutcome =
  | { readonly result: 'Success'; readonly spaceSaved: number; readonly maxChunkScavenged: number }
  | { readonly result: 'Stopped'; readonly spaceSaved: number; readonly maxChunkScavenged: number };

/**
 * One per node, opened by the daemon on `<index>/scavenging/scavenging.db`.
 * `run` resumes from the saved stage when the checkpoint's point is the same point; it rejects
 * (the run "Failed") on an error, leaving every chunk and index file whole.
 */
export interface Scavenger {
  checkpoint(): ScavengeCheckpoint | undefined;
  run(options: ScavengeRunOptions): Promise<ScavengeOutcome>;
  close(): void;
}
