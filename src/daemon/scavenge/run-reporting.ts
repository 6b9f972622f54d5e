import type { Logger } from '../../common/logger.js';
import type { ChunkExecutionReport, ChunkMergeReport, IndexExecutionReport, ScavengeStage } from '../../storage/maintenance/scavenge/types.js';
import { ScavengeEventType, type ScavengeHistory } from './scavenge-history.js';
import type { RunReports, ScavengeRun } from './scavenge-run.js';
import { timeSpanText } from './time-span.js';

/**
 * Passes the scavenger's reports on to `$scavenges-<id>` (in order, without holding up the run)
 * and to the log: the per-chunk lines carry "with weight", which operators grep for.
 */
export class RunReporting implements RunReports {
  private writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly history: ScavengeHistory,
    private readonly logger: Logger,
    private readonly nodeEndpoint: () => string,
    private readonly threshold: number,
  ) {}

  private record(run: ScavengeRun, eventType: string, data: Record<string, unknown>): void {
    const event = { scavengeId: run.scavengeId, ...data, nodeEndpoint: this.nodeEndpoint() };
    this.writes = this.writes.then(() => this.history.record(run.scavengeId, eventType, event)).catch((error: unknown) => {
      this.logger.error({ err: error, scavengeId: run.scavengeId, eventType }, 'a scavenge event could not be recorded');
    });
  }

  settled(): Promise<void> {
    return this.writes;
  }

  stageStarted(_run: ScavengeRun, _stage: ScavengeStage): void {
    // The scavenger logs each stage it enters; the run keeps its phase for the API.
  }

  chunkExecuted(run: ScavengeRun, report: ChunkExecutionReport): void {
    const { chunkStartNumber: start, chunkEndNumber: end, weight } = report;
    const fields = { scavengeId: run.scavengeId, chunkStartNumber: start, chunkEndNumber: end, weight, spaceSaved: report.spaceSaved };
    // Operators grep for "with weight": one line per chunk file, executed or skipped.
    if (report.errorMessage) this.logger.error({ ...fields, error: report.errorMessage }, `Failed to scavenge physical chunk ${start}-${end} with weight ${weight}`);
    else if (report.wasScavenged) this.logger.info(fields, `Scavenged physical chunk ${start}-${end} with weight ${weight}: ${report.spaceSaved} bytes saved`);
    else if (weight > this.threshold) this.logger.info(fields, `Kept physical chunk ${start}-${end} with weight ${weight} as it was: no record in it can be removed`);
    else this.logger.info({ ...fields, threshold: this.threshold }, `Skipped physical chunk ${start}-${end} with weight ${weight}. The threshold is ${this.threshold}`);
    this.record(run, ScavengeEventType.chunksCompleted, {
      chunkStartNumber: start, chunkEndNumber: end, timeTaken: timeSpanText(report.timeTakenMs), wasScavenged: report.wasScavenged,
      spaceSaved: report.spaceSaved, errorMessage: report.errorMessage ?? null,
    });
  }

  chunksMerged(run: ScavengeRun, report: ChunkMergeReport): void {
    this.logger.info({ scavengeId: run.scavengeId, chunkStartNumber: report.chunkStartNumber, chunkEndNumber: report.chunkEndNumber, wasMerged: report.wasMerged },
      `${report.wasMerged ? 'Merged' : 'Did not merge'} chunks ${report.chunkStartNumber}-${report.chunkEndNumber}`);
    this.record(run, ScavengeEventType.mergeCompleted, {
      chunkStartNumber: report.chunkStartNumber, chunkEndNumber: report.chunkEndNumber, timeTaken: timeSpanText(report.timeTakenMs),
      spaceSaved: report.spaceSaved, wasMerged: report.wasMerged, errorMessage: report.errorMessage ?? null,
    });
  }

  indexExecuted(run: ScavengeRun, report: IndexExecutionReport): void {
    this.record(run, ScavengeEventType.indexCompleted, {
      level: report.level, index: report.index, timeTaken: timeSpanText(report.timeTakenMs), entriesDeleted: report.entriesDeleted,
      entriesKept: report.entriesKept, spaceSaved: report.spaceSaved, wasScavenged: report.wasScavenged, errorMessage: report.errorMessage ?? null,
    });
  }
}
