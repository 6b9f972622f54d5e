/**
 * The node's recent statistics as `GET /stats/history` serves them: one sample a second, kept by
 * the node, so a chart opened (or opened again after another page) starts with the minutes before.
 * The console asks only for samples newer than the last it holds.
 */
import type { StatsHistoryDocument, StatsSample } from '../../src/common/stats-history-document.js';

export type SeriesName = Exclude<keyof StatsSample, 'sequence' | 'time' | 'queueLengths'>;

export interface Point {
  timeMs: number;
  value: number;
}

export class NodeHistory {
  private samples: StatsSample[] = [];
  private samplesMax = 600;

  /** The `after` parameter for the next request: the newest sequence held. */
  get after(): number {
    return this.samples.at(-1)?.sequence ?? -1;
  }

  get latest(): StatsSample | undefined {
    return this.samples.at(-1);
  }

  add(reply: StatsHistoryDocument): void {
    this.samplesMax = reply.samplesMax;
    // A sequence lower than the newest held means the node restarted: start over.
    const first = reply.samples[0];
    if (first !== undefined && first.sequence <= this.after) this.samples = [];
    this.samples.push(...reply.samples);
    if (this.samples.length > this.samplesMax) this.samples.splice(0, this.samples.length - this.samplesMax);
  }

  points(value: (sample: StatsSample) => number): Point[] {
    return this.samples.map((sample) => ({ timeMs: Date.parse(sample.time), value: value(sample) }));
  }

  series(name: SeriesName): Point[] {
    return this.points((sample) => sample[name]);
  }

  /** The names of the queues seen in the samples, in order of first appearance. */
  queueNames(): string[] {
    const names = new Set<string>();
    for (const sample of this.samples) for (const name of Object.keys(sample.queueLengths ?? {})) names.add(name);
    return [...names];
  }
}

/** The query of the next request for `history`. */
export function historyPath(history: NodeHistory): string {
  return history.after < 0 ? '/stats/history' : `/stats/history?after=${history.after}`;
}
