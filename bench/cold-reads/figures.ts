/**
 * The figures of one round and their printing: a line per round, then the medians of the quiet
 * and the scans rounds side by side, and the p99 ratio against its target.
 */
import { median, report } from '../measure.js';
import { shown } from '../peers/table.js';

export type RoundKind = 'quiet' | 'scans';

export interface RoundResult {
  kind: RoundKind;
  appendsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The server's CPU (all its threads) over the round, in cores. */
  serverCores: number;
  /** This process's CPU over the round, in cores: near 1 the load generator set the pace. */
  loadGeneratorCores: number;
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
    + `load generator ${percent(result.loadGeneratorCores)} of its core${scans ? `; ${scans}` : ''}`);
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
    ...scannerNames.map((name) => ({ name: `${name}, events/s`, read: (result: RoundResult) => result.scanned.get(name), digits: 0, ratio: false })),
  ];
}

function medianOf(results: readonly RoundResult[], row: Row): number | undefined {
  const values = results.map(row.read).filter((value): value is number => value !== undefined);
  return values.length === 0 ? undefined : median(values);
}

/** The medians table in Markdown, then the p99 ratio as a figure with its target. */
export function reportMedians(results: readonly RoundResult[]): void {
  const quiet = results.filter((result) => result.kind === 'quiet');
  const scans = results.filter((result) => result.kind === 'scans');
  const lines = ['| figure | quiet | scans | scans/quiet |', '|---|---:|---:|---:|'];
  for (const row of rows([...(scans[0]?.scanned.keys() ?? [])])) {
    const [without, withScans] = [medianOf(quiet, row), medianOf(scans, row)];
    const ratio = row.ratio && without !== undefined && withScans !== undefined && without !== 0 ? `${(withScans / without).toFixed(2)}×` : '';
    lines.push(`| ${row.name} | ${shown(without, row.digits)} | ${shown(withScans, row.digits)} | ${ratio} |`);
  }
  process.stdout.write(`\nMedians of ${quiet.length} quiet and ${scans.length} scans rounds:\n\n${lines.join('\n')}\n\n`);
  const ratio = median(scans.map((result) => result.p99Ms)) / median(quiet.map((result) => result.p99Ms));
  report('append p99 with scans / without', ratio, '×', `target ≤ ${P99_RATIO_TARGET}×: ${ratio <= P99_RATIO_TARGET ? 'met' : 'not met'}`);
}
