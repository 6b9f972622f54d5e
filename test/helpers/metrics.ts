/**
 * A real node (the daemon, real engine, projections on) for the /metrics tests, and a scrape
 * parsed into metric families by name.
 */
import { join } from 'node:path';
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { pino } from 'pino';
import type { Test } from 'tap';
import { Daemon } from '../../src/daemon/daemon.js';
import { daemonOptions } from '../../src/daemon/options.js';
import { Engine } from '../../src/storage/engine.js';
import { adminFetch } from './auth.js';

export async function startMetricsNode(t: Test): Promise<string> {
  const dir = t.testdir();
  const options = daemonOptions({
    db: join(dir, 'db'), httpPort: 0, chunkSize: 1024 * 1024, logLevel: 'warn', runProjections: 'All', startStandardProjections: true,
  }, dir);
  const daemon = await Daemon.start(options, { logger: pino({ level: 'silent' }), version: '9.9.9', openStorage: (engineOptions) => Engine.open(engineOptions) });
  t.teardown(() => daemon.stop());
  return `http://127.0.0.1:${daemon.address.port}`;
}

async function scrapeText(url: string): Promise<string> {
  const response = await adminFetch(`${url}/metrics`);
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  return response.text();
}

export async function scrape(url: string): Promise<Map<string, PrometheusFamily>> {
  return new Map(parsePrometheusTextFormat(await scrapeText(url)).map((family) => [family.name, family]));
}

export interface HistogramSeries {
  labels: Record<string, string>;
  /** Cumulative counts by upper bound (`le`). */
  buckets: Record<string, number>;
  count: number;
}

/**
 * The series of one histogram by label set. parse-prometheus-text-format folds the series of a
 * labelled histogram into one, so its sample lines are read here.
 */
export async function scrapeHistogram(url: string, name: string): Promise<HistogramSeries[]> {
  const series = new Map<string, HistogramSeries>();
  for (const [, suffix, labelText, value] of (await scrapeText(url)).matchAll(new RegExp(`^${name}_(bucket|count)\\{(.*)\\} (\\S+)$`, 'gm'))) {
    const labels = Object.fromEntries([...labelText.matchAll(/(\w+)="([^"]*)"/g)].map(([, key, text]) => [key, text]));
    const { le, ...rest } = labels;
    const key = JSON.stringify(rest);
    const entry = series.get(key) ?? { labels: rest, buckets: {}, count: 0 };
    if (suffix === 'bucket') entry.buckets[le] = Number(value);
    else entry.count = Number(value);
    series.set(key, entry);
  }
  return [...series.values()];
}
