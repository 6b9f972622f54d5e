/**
 * The comparison table: per workload and figure, the median over the rounds of each peer and of
 * svcdb, then svcdb's ratio to each peer (above 1 for events/s means svcdb is faster; below 1 for
 * latency, syncs and CPU means svcdb needs less).
 */
import { median } from '../measure.js';
import { WORKLOADS, workName, type Result } from './workloads.js';

interface Figure {
  name: string;
  read: (result: Result) => number | undefined;
  digits: number;
}

const FIGURES: readonly Figure[] = [
  { name: 'events/s', read: (result) => result.eventsPerSecond, digits: 0 },
  { name: 'p50 ms', read: (result) => result.p50Ms, digits: 2 },
  { name: 'p99 ms', read: (result) => result.p99Ms, digits: 2 },
  { name: 'syncs/s', read: (result) => result.syncsPerSecond, digits: 0 },
  { name: 'CPU µs/event', read: (result) => result.cpuUsPerEvent, digits: 1 },
];

/** Results of one system: per workload (in WORKLOADS' order), one per round. */
export type Rounds = Result[][];

function medianOf(results: Result[], figure: Figure): number | undefined {
  const values = results.map(figure.read).filter((value): value is number => value !== undefined);
  return values.length === 0 ? undefined : median(values);
}

/** A figure as the tables show it: thousands separated, `n/a` for none. */
export const shown = (value: number | undefined, digits: number) =>
  value === undefined ? 'n/a' : value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The table in Markdown, svcdb's column after its peers', then one ratio column per peer. */
export function comparisonTable(svcdb: Rounds, peers: ReadonlyMap<string, Rounds>): string {
  const labels = [...peers.keys()];
  const lines = [
    `| work | ${[...labels, 'svcdb', ...labels.map((label) => `svcdb/${label}`)].join(' | ')} |`,
    `|---|${'---:|'.repeat(labels.length * 2 + 1)}`,
  ];
  WORKLOADS.forEach((work, index) => {
    for (const figure of FIGURES) {
      const ours = medianOf(svcdb[index], figure);
      const theirs = labels.map((label) => medianOf(peers.get(label)![index], figure));
      const ratios = theirs.map((value) => (ours === undefined || value === undefined || value === 0 ? 'n/a' : `${(ours / value).toFixed(2)}×`));
      lines.push(`| ${workName(work)}: ${figure.name} | ${[...theirs, ours].map((value) => shown(value, figure.digits)).join(' | ')} | ${ratios.join(' | ')} |`);
    }
  });
  return `${lines.join('\n')}\n`;
}
