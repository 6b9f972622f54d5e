/** Small measuring tools shared by the benchmarks: timing, percentiles and printing. */

export function nowMs(): number {
  return performance.now();
}

export function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return NaN;
  return sortedMs[Math.min(sortedMs.length - 1, Math.floor((p / 100) * sortedMs.length))];
}

/** The middle value (of an odd count; the upper middle of an even one). */
export function median(values: readonly number[]): number {
  return percentile([...values].sort((a, b) => a - b), 50);
}

export interface Figure {
  name: string;
  value: number;
  unit: string;
  note?: string;
}

const figures: Figure[] = [];

export function report(name: string, value: number, unit: string, note?: string): void {
  figures.push({ name, value, unit, note });
  const shown = value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(2);
  process.stdout.write(`${name.padEnd(58)} ${shown.padStart(14)} ${unit}${note ? `  (${note})` : ''}\n`);
}

export function section(title: string): void {
  process.stdout.write(`\n== ${title}\n`);
}

export function allFigures(): Figure[] {
  return figures;
}

/** Runs `worker` on `concurrency` loops until `durationMs` passes; returns per-call latencies. */
export async function runFor(durationMs: number, concurrency: number, worker: (loop: number, i: number) => Promise<unknown>): Promise<{ latenciesMs: number[]; elapsedMs: number }> {
  const latenciesMs: number[] = [];
  const start = nowMs();
  const deadline = start + durationMs;
  await Promise.all(Array.from({ length: concurrency }, async (_, loop) => {
    for (let i = 0; nowMs() < deadline; i++) {
      const t0 = nowMs();
      await worker(loop, i);
      latenciesMs.push(nowMs() - t0);
    }
  }));
  latenciesMs.sort((a, b) => a - b);
  return { latenciesMs, elapsedMs: nowMs() - start };
}
