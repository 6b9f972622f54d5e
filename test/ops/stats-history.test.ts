// GET /stats/history on a real node: authenticated like /stats, one sample a second with rates,
// `?after=` for only the newer ones, bad input a 400; the node's own monitoring requests are
// counted apart, so a node that only answers them shows no reads and no requests.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import t from 'tap';
import { Daemon } from '../../src/daemon/daemon.js';
import { daemonOptions } from '../../src/daemon/options.js';
import { Engine } from '../../src/storage/engine.js';
import type { StatsSample } from '../../src/common/stats-history-document.js';
import { adminFetch } from '../helpers/auth.js';
import { pollUntilAsync } from '../helpers/wait.js';

const dir = t.testdir();
const options = daemonOptions({ db: join(dir, 'db'), httpPort: 0, chunkSize: 1024 * 1024, logLevel: 'warn' }, dir);
const daemon = await Daemon.start(options, { logger: pino({ level: 'silent' }), version: '9.9.9', openStorage: (engineOptions) => Engine.open(engineOptions) });
t.teardown(() => daemon.stop());
const base = `http://127.0.0.1:${daemon.address.port}`;

interface History {
  periodMs: number;
  samplesMax: number;
  samples: StatsSample[];
}

async function history(after?: number): Promise<History> {
  const response = await adminFetch(`${base}/stats/history${after === undefined ? '' : `?after=${after}`}`);
  if (response.status !== 200) throw new Error(`history answered ${response.status}`);
  return await response.json() as History;
}

/** Polls until the node has taken a sample after `sequence`, and returns the samples after it. */
async function samplesAfter(sequence: number, count = 1): Promise<StatsSample[]> {
  let samples: StatsSample[] = [];
  await pollUntilAsync(`${count} samples after ${sequence}`, async () => {
    samples = (await history(sequence)).samples;
    return samples.length >= count;
  }, { intervalMs: 100 });
  return samples;
}

t.test('without credentials the history is refused like /stats', async (t) => {
  const anonymous = await fetch(`${base}/stats/history`);
  const stats = await fetch(`${base}/stats`);
  t.equal(anonymous.status, 401);
  t.equal(anonymous.status, stats.status, 'the same answer as /stats');
});

t.test('a node that only answers monitoring requests shows no reads and no requests', async (t) => {
  // The first samples hold the node's start and the first login (a read of the user's record).
  const first = await samplesAfter(-1);
  const settled = await samplesAfter(first.at(-1)!.sequence);
  // Three intervals during which the node is asked for its history ten times a second.
  const idle = await samplesAfter(settled.at(-1)!.sequence, 3);
  t.ok(idle.some((sample) => sample.monitoringRequestsPerSecond > 0), 'the monitoring requests are counted');
  t.same(idle.map((sample) => sample.requestsPerSecond), idle.map(() => 0), 'and left out of the request rate');
  t.same(idle.map((sample) => sample.readsPerSecond), idle.map(() => 0), 'no event was read');
});

t.test('appends show as a rate in the samples, with the node\'s gauges and a time', async (t) => {
  const { samples, periodMs, samplesMax } = await history();
  t.equal(periodMs, 1000);
  t.equal(samplesMax, 600);
  const last = samples.at(-1)!.sequence;
  for (let i = 0; i < 30; i++) {
    const response = await adminFetch(`${base}/streams/history-test`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'svc-eventtype': 'Tested', 'svc-eventid': randomUUID() },
      body: JSON.stringify({ n: i }),
    });
    t.equal(response.status, 201);
  }
  let newer: StatsSample[] = [];
  await pollUntilAsync('a sample with the appends', async () => {
    newer = (await history(last)).samples;
    return newer.reduce((sum, sample) => sum + sample.appendsPerSecond, 0) > 0;
  }, { intervalMs: 200 });
  t.ok(newer.every((sample) => sample.sequence > last), '?after= gives only newer samples');
  t.ok(newer.some((sample) => sample.requestsPerSecond > 0), 'the appends count as requests');
  const sample = newer.at(-1)!;
  t.ok(Date.parse(sample.time) > Date.now() - 60_000, 'a recent time');
  t.ok(sample.memoryBytes > 0 && sample.diskFreeBytes > 0 && sample.connections >= 1, 'gauges of the node');
});

t.test('a bad ?after= is a 400', async (t) => {
  const response = await adminFetch(`${base}/stats/history?after=soon`);
  t.equal(response.status, 400);
});
