/**
 * The client side of the crash test of `svcdb serve`: appenders that write seeded batches to
 * their own stream over keep-alive HTTP connections until the node dies, and a reader of a whole
 * stream over HTTP with each event's data and metadata as stored.
 */
import { Agent, request } from 'node:http';
import { ADMIN_AUTH } from './auth.js';
import type { ReadEvent, SentEvent, StreamLedger } from './crash-ledger.js';
import type { TestRandom } from './random.js';

const EVENT_TYPE = 'CrashTest';
const BATCH_TYPE = 'application/vnd.svc.events+json';
const ATOM_JSON = 'application/vnd.svc.atom+json';
/** The most events one read returns (the engine's limit). */
const PAGE_COUNT = 4096;
/** A stream read gives up after this many pages: no test stream grows that far. */
const PAGES_MAX = 1000;

interface HttpReply {
  status: number;
  body: string;
}

function send(agent: Agent, url: string, method: string, headers: Record<string, string>, body?: Buffer): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { agent, method, headers: { authorization: ADMIN_AUTH, ...headers } }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      incoming.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/**
 * A batch of 1-5 events, or one event to send raw. Data and metadata are JSON text that a serializer would not write
 * (spaces around the colons, non-ASCII characters): reading back the same bytes shows that the
 * node stores what it was sent. Pads of up to a few KiB make the log cross 1 MiB chunks.
 */
function newBatch(stream: string, firstEventNumber: number, random: TestRandom, asBatch: boolean): SentEvent[] {
  return Array.from({ length: asBatch ? random.integer(1, 5) : 1 }, (_, offset) => {
    const pad = 'é✓x'.repeat(random.integer(0, 400));
    const data = `{ "stream" : "${stream}", "eventNumber" : ${firstEventNumber + offset}, "pad" : "${pad}" }`;
    const metadata = asBatch ? `{ "sentAs" : "batch", "word" : ${random.word()} }` : '';
    return { eventId: random.uuid(), eventType: EVENT_TYPE, data: Buffer.from(data), metadata: Buffer.from(metadata) };
  });
}

/** The headers and body of an append: one raw `application/json` event, or a batch document. */
function appendRequest(events: SentEvent[], expectedVersion: number, asBatch: boolean): { headers: Record<string, string>; body: Buffer } {
  const expected = { 'svc-expectedversion': String(expectedVersion) };
  if (!asBatch) {
    const [event] = events;
    return { headers: { ...expected, 'content-type': 'application/json', 'svc-eventid': event.eventId, 'svc-eventtype': event.eventType }, body: event.data };
  }
  // A string holding JSON is stored as that string's bytes, not parsed and written again.
  const document = events.map((event) => ({
    eventId: event.eventId, eventType: event.eventType, data: event.data.toString('utf8'), metadata: event.metadata.toString('utf8'),
  }));
  return { headers: { ...expected, 'content-type': BATCH_TYPE }, body: Buffer.from(JSON.stringify(document)) };
}

export interface AppendTarget {
  url: string;
  agent: Agent;
  /** Called after each 201, in the order they arrive. */
  onAcknowledged: () => void;
  /** Replies other than 201, as `status body`: a node that is up refuses none of these appends. */
  refusals: string[];
}

/**
 * Appends seeded batches to the ledger's stream at the exact expected version until a request
 * fails (the node died) or is refused. Each batch is in the ledger before it is sent.
 */
export async function appendUntilFailure(target: AppendTarget, ledger: StreamLedger, random: TestRandom): Promise<void> {
  let next = ledger.durableCount;
  for (;;) {
    const asBatch = random.integer(0, 2) > 0;
    const events = newBatch(ledger.streamName, next, random, asBatch);
    const batch = ledger.send(next, events);
    const { headers, body } = appendRequest(batch.events, next - 1, asBatch);
    let reply: HttpReply;
    try {
      reply = await send(target.agent, `${target.url}/streams/${ledger.streamName}`, 'POST', headers, body);
    } catch {
      return; // The connection broke: the node is gone.
    }
    if (reply.status !== 201) {
      target.refusals.push(`${reply.status} ${reply.body.slice(0, 300)}`);
      return;
    }
    ledger.acknowledge(batch);
    next += batch.events.length;
    target.onAcknowledged();
  }
}

interface FeedEntry {
  eventNumber: number;
  eventId: string;
  eventType: string;
  data?: string;
  metaData?: string | null;
}

/**
 * Every event of `stream` as the node serves it, in order. With `embed=body` a JSON event's data
 * and metadata come as the stored text, so their UTF-8 bytes are the stored bytes.
 */
export async function readStreamOverHttp(agent: Agent, url: string, stream: string): Promise<ReadEvent[]> {
  const events: ReadEvent[] = [];
  for (let page = 0; page < PAGES_MAX; page++) {
    const path = `/streams/${stream}/${events.length}/forward/${PAGE_COUNT}?embed=body`;
    const reply = await send(agent, url + path, 'GET', { accept: ATOM_JSON });
    if (reply.status === 404 && events.length === 0) return events;
    if (reply.status !== 200) throw new Error(`GET ${path}: ${reply.status} ${reply.body.slice(0, 300)}`);
    const entries = (JSON.parse(reply.body) as { entries: FeedEntry[] }).entries;
    const ascending = [...entries].sort((a, b) => a.eventNumber - b.eventNumber);
    events.push(...ascending.map((entry) => ({
      eventNumber: entry.eventNumber,
      eventId: entry.eventId,
      eventType: entry.eventType,
      data: Buffer.from(entry.data ?? ''),
      metadata: Buffer.from(entry.metaData ?? ''),
    })));
    if (entries.length < PAGE_COUNT) return events;
  }
  throw new Error(`${stream} has more than ${PAGES_MAX} pages of ${PAGE_COUNT} events: the read does not end`);
}
