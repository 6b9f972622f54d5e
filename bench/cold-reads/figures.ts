/**
 * The figures of one round and their printing: a line per round, then the medians of the quiet
 * and the scans rounds side by side, and the p99 ratio against its target.
 */
import { median, report } from '../measure.js';
import { shown } from '../peers/table.js';

export type RoundKind = 'quiet' | 'scans' | 'warm scans';

export interface RoundResult {
  kind: RoundKind;
  appendsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The server's CPU (all its threads) over the round, in cores. */
  serverCores: number;
  /**
   * Shares of the round the server's main thread (its event loop) ran on a core and waited,
   * ready, for one; the rest it slept: idle, or blocked in a read from the disk.
   */
  loopRunning: number;
  loopWaiting: number;
  /** This process's CPU over the round, in cores: near 1 the load generator set the pace. */
  loadGeneratorCores: number;
  /** The share of the round this process's main thread waited for its core: the clients' own delay. */
  loadGeneratorWaiting: number;
  /** Events per second each reader read, by reader; none in a quiet round. */
  scanned: ReadonlyMap<string, number>;
}

/** The p99 of the appends with scans may be at most this many times that without. */
export const P99_RATIO_TARGET = 2;

const percent = (cores: number) => `${(cores * 100).toFixed(0)}%`;

export function reportRound(result: RoundResult, number: number): void {
  const scans = [...result.scanned].map(([name, rate]) => `${name} ${shown(rate, 0)} events/s`).join(', ');
  report(`${result.kind}, round ${number}`, result.appendsPerSecond, 'appends/s',
    `p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, max ${result.maxMs.toFixed(1)} ms, server CPU ${percent(result.serverCores)} of a core, `
    + `its event loop ran ${percent(result.loopRunning)}, waited for a core ${percent(result.loopWaiting)}, slept ${percent(1 - result.loopRunning - result.loopWaiting)} of the round, `
    + `load generator ${percent(result.loadGeneratorCores)} of its core, waited for it ${percent(result.loadGeneratorWaiting)}${scans ? `; ${scans}` : ''}`);
}

interface Row {
  name: string;
  read: (result: RoundResult) => number | undefined;
  digits: number;
  /** Whether the scans/quiet ratio of this row means something. */
  ratio: boolean;
}

function rows(scannerNames: readonly string[]): Row[] {
  return [
    { name: 'appends/s', read: (result) => result.appendsPerSecond, digits: 0, ratio: true },
    { name: 'append p50 ms', read: (result) => result.p50Ms, digits: 2, ratio: true },
    { name: 'append p99 ms', read: (result) => result.p99Ms, digits: 2, ratio: true },
    { name: 'append max ms', read: (result) => result.maxMs, digits: 1, ratio: true },
    { name: 'server CPU, % of a core', read: (result) => result.serverCores * 100, digits: 0, ratio: true },
    { name: 'event loop on a core, % of the round', read: (result) => result.loopRunning * 100, digits: 0, ratio: true },
    { name: 'event loop waiting for a core, %', read: (result) => result.loopWaiting * 100, digits: 0, ratio: true },
    { name: 'event loop asleep (idle or blocked), %', read: (result) => (1 - result.loopRunning - result.loopWaiting) * 100, digits: 0, ratio: true },
    ...scannerNames.map((name) => ({ name: `${name}, events/s`, read: (result: RoundResult) => result.scanned.get(name), digits: 0, ratio: false })),
  ];
}

function medianOf(results: readonly RoundResult[], row: Row): number | undefined {
  const values = results.map(row.read).filter((value): value is number => value !== undefined);
  return values.length === 0 ? undefined : median(values);
}

const ratioOf = (value: number | undefined, base: number | undefined) =>
  (value === undefined || base === undefined || base === 0 ? '' : `${(value / base).toFixed(2)}×`);

/**
 * The medians table in Markdown, a column per kind of round in `kinds` (quiet first) and the
 * ratio of each other kind to quiet; then the p99 ratio of the scans with its target.
 */
export function reportMedians(results: readonly RoundResult[], kinds: readonly RoundKind[]): void {
  const byKind = kinds.map((kind) => results.filter((result) => result.kind === kind));
  const others = kinds.slice(1);
  const lines = [
    `| figure | ${[...kinds, ...others.map((kind) => `${kind}/quiet`)].join(' | ')} |`,
    `|---|${'---:|'.repeat(kinds.length + others.length)}`,
  ];
  const scannerNames = [...(byKind[1]?.[0]?.scanned.keys() ?? [])];
  for (const row of rows(scannerNames)) {
    const medians = byKind.map((rounds) => medianOf(rounds, row));
    const ratios = medians.slice(1).map((value) => (row.ratio ? ratioOf(value, medians[0]) : ''));
    lines.push(`| ${row.name} | ${[...medians.map((value) => shown(value, row.digits)), ...ratios].join(' | ')} |`);
  }
  const counts = kinds.map((kind, index) => `${byKind[index].length} ${kind}`).join(', ');
  process.stdout.write(`\nMedians of the rounds (${counts}):\n\n${lines.join('\n')}\n\n`);
  const p99 = (rounds: readonly RoundResult[]) => median(rounds.map((result) => result.p99Ms));
  const ratio = p99(byKind[1]) / p99(byKind[0]);
  report('append p99 with scans / without', ratio, '×', `target ≤ ${P99_RATIO_TARGET}×: ${ratio <= P99_RATIO_TARGET ? 'met' : 'not met'}`);
  if (byKind[2] !== undefined) report('append p99 with scans of a warm log / without', p99(byKind[2]) / p99(byKind[0]), '×', 'the control: the readers\' work without their waits on the disk');
}
