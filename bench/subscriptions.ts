/**
 * Persistent subscriptions over HTTP, against a node (`svcdb serve`) in a child process:
 *  - consume-and-ack throughput: 10 consumers of one round-robin group, each taking batches of
 *    50 and acknowledging them with the batch's ackAll link, beside the baseline of the same run:
 *    10 clients reading the same stream as plain 50-event forward feed pages;
 *  - append → delivered latency: one consumer long-polling a group from the end of a stream while
 *    events are appended one at a time; the time from sending the append to holding the message.
 */
import { Agent, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { pinning, startServer, stop } from './http.js';
import { nowMs, percentile, report, section } from './measure.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const DURATION_MS = Number(process.env.SVC_BENCH_SECONDS ?? 3) * 1000 + 2000;
const STREAM = 'bench-orders';
const EVENTS = 60_000;
const CLIENTS = 10;
const BATCH = 50;
const LATENCY_SAMPLES = 300;
const ADMIN = `Basic ${Buffer.from('admin:changeit').toString('base64')}`;
const COMPETING_JSON = 'application/vnd.svc.competingatom+json';

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

interface Reply {
  status: number;
  body: string;
}

function send(method: string, url: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, headers: { authorization: ADMIN, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function must(reply: Promise<Reply>, status: number, what: string): Promise<Reply> {
  const result = await reply;
  if (result.status !== status) throw new Error(`${what}: ${result.status} ${result.body}`);
  return result;
}

async function appendBatch(url: string, stream: string, count: number, data: () => unknown): Promise<void> {
  const events = Array.from({ length: count }, () => ({ eventId: randomUUID(), eventType: 'OrderPlaced', data: data() }));
  await must(send('POST', `${url}/streams/${stream}`, { 'content-type': 'application/vnd.svc.events+json' }, JSON.stringify(events)), 201, 'append');
}

async function createGroup(url: string, stream: string, group: string, settings: Record<string, unknown>): Promise<void> {
  await must(send('PUT', `${url}/subscriptions/${stream}/${group}`, { 'content-type': 'application/json' }, JSON.stringify(settings)), 201, `create ${group}`);
}

/** 10 clients reading forward 50-event pages of the stream, wrapping around: events per second. */
async function feedReads(url: string): Promise<number> {
  let events = 0;
  const deadline = nowMs() + DURATION_MS;
  const start = nowMs();
  await Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
    for (let from = client * BATCH * 7; nowMs() < deadline; from = (from + BATCH * CLIENTS) % (EVENTS - BATCH)) {
      const reply = await must(send('GET', `${url}/streams/${STREAM}/${from}/forward/${BATCH}`, { accept: 'application/vnd.svc.atom+json' }), 200, 'feed read');
      events += (JSON.parse(reply.body) as { entries: unknown[] }).entries.length;
    }
  }));
  return events / ((nowMs() - start) / 1000);
}

/** 10 consumers taking batches of 50 and acknowledging each with its ackAll link: messages per second. */
async function consumeAndAck(url: string): Promise<{ rate: number; empty: number }> {
  let acknowledged = 0;
  let empty = 0;
  const deadline = nowMs() + DURATION_MS;
  const start = nowMs();
  await Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
    while (nowMs() < deadline) {
      const reply = await must(send('GET', `${url}/subscriptions/${STREAM}/bench/${BATCH}`, { accept: COMPETING_JSON, 'svc-connectionname': `consumer-${client}` }), 200, 'take');
      const feed = JSON.parse(reply.body) as { entries: unknown[]; links: Array<{ uri: string; relation: string }> };
      const ackAll = feed.links.find((link) => link.relation === 'ackAll');
      if (ackAll === undefined) {
        empty++;
        continue;
      }
      await must(send('POST', ackAll.uri), 202, 'ack');
      acknowledged += feed.entries.length;
    }
  }));
  return { rate: acknowledged / ((nowMs() - start) / 1000), empty };
}

/** One long-polling consumer; events appended one at a time, each carrying when it was sent. */
async function deliveryLatency(url: string): Promise<number[]> {
  const latencies: number[] = [];
  let consuming = true;
  const consumer = (async () => {
    while (consuming) {
      const reply = await must(send('GET', `${url}/subscriptions/latency/bench/${BATCH}?embed=body`, { accept: COMPETING_JSON, 'svc-longpoll': '5', 'svc-connectionname': 'latency' }), 200, 'long-poll take');
      const received = nowMs();
      const feed = JSON.parse(reply.body) as { entries: Array<{ data: string }>; links: Array<{ uri: string; relation: string }> };
      for (const entry of feed.entries) latencies.push(received - (JSON.parse(entry.data) as { sentAt: number }).sentAt);
      const ackAll = feed.links.find((link) => link.relation === 'ackAll');
      if (ackAll) await must(send('POST', ackAll.uri), 202, 'ack');
    }
  })();
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    await appendBatch(url, 'latency', 1, () => ({ sentAt: nowMs() }));
    // Spaced out, so each append finds the consumer waiting rather than a queue.
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const wanted = nowMs() + 10_000;
  while (latencies.length < LATENCY_SAMPLES && nowMs() < wanted) await new Promise((resolve) => setTimeout(resolve, 10));
  consuming = false;
  await appendBatch(url, 'latency', 1, () => ({ sentAt: nowMs() }));
  await consumer;
  return latencies.slice(0, LATENCY_SAMPLES).sort((a, b) => a - b);
}

export async function subscriptionBenchmarks(): Promise<void> {
  const { prefix, release } = pinning();
  const directory = mkdtempSync(join(tmpdir(), 'svcdb-bench-subscriptions-'));
  try {
    section(`persistent subscriptions over HTTP (${CLIENTS} clients, batches of ${BATCH})`);
    const node = await startServer(['--no-node-snapshot', join(root, 'bin/run.js'), 'serve', '--db', join(directory, 'db'), '--http-port', '0'], prefix);
    try {
      for (let written = 0; written < EVENTS; written += 500) {
        await appendBatch(node.url, STREAM, 500, () => ({ orderId: randomUUID(), amount: 42, pad: 'x'.repeat(100) }));
      }
      await createGroup(node.url, STREAM, 'bench', { bufferSize: 2000, readBatchSize: 500, messageTimeoutMilliseconds: 60_000 });
      const feed = await feedReads(node.url);
      report('feed reads, 50-event forward pages (baseline)', feed, 'events/s');
      const consumed = await consumeAndAck(node.url);
      report('consume and ack, round robin', consumed.rate, 'messages/s', `${((consumed.rate / feed) * 100).toFixed(0)}% of the feed reads, ${consumed.empty} empty takes`);
      await createGroup(node.url, 'latency', 'bench', { startFrom: -1 });
      const latencies = await deliveryLatency(node.url);
      report('append → delivered to a long-polling consumer, p50', percentile(latencies, 50), 'ms', `${latencies.length} events`);
      report('append → delivered to a long-polling consumer, p99', percentile(latencies, 99), 'ms');
    } finally {
      await stop(node);
    }
  } finally {
    agent.destroy();
    release();
    rmSync(directory, { recursive: true, force: true });
  }
}
