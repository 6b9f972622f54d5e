/**
 * The readers of a scans round, each from the start of the cold log, each one request at a time
 * over HTTP as a client would: a client paging $all forward, a persistent subscription catching
 * up on a stream spread over the whole log, a continuous fromAll() projection in the node, and a
 * client reading pages of random streams backward (scattered reads through the index).
 */
import { basic } from '../http.js';
import { streamName, STREAMS, SUBSCRIBED_STREAM } from './log-build.js';

const ADMIN = basic('admin', 'changeit');
const ATOM_JSON = 'application/vnd.svc.atom+json';
const COMPETING_JSON = 'application/vnd.svc.competingatom+json';
const ALL_PAGE_EVENTS = 100;
const SUBSCRIPTION_BATCH = 100;
const STREAM_PAGE_EVENTS = 20;
const ALL_START = '0'.repeat(32);
const PROJECTION_SOURCE = 'fromAll().when({ $init: function () { return { count: 0 }; }, $any: function (state) { state.count++; return state; } })';

interface Feed {
  entries: unknown[];
  links: Array<{ uri: string; relation: string }>;
}

async function call(method: string, url: string, status: number, headers: Record<string, string> = {}, body?: string): Promise<string> {
  const response = await fetch(url, { method, headers: { ...ADMIN, ...headers }, body });
  const text = await response.text();
  if (response.status !== status) throw new Error(`${method} ${url}: ${response.status} ${text}`);
  return text;
}

const feedOf = (text: string) => JSON.parse(text) as Feed;
const linkOf = (feed: Feed, relation: string) => feed.links.find((link) => link.relation === relation)?.uri;

/** A reader started at a round's start; `stop` ends it and says how many events it read. */
export interface Scan {
  name: string;
  stop(): Promise<number>;
}

/** Runs `step` (which returns the events it read) over and over until stopped. */
function loop(name: string, step: () => Promise<number>, cleanUp: () => Promise<void> = async () => undefined): Scan {
  let running = true;
  let events = 0;
  const done = (async () => {
    while (running) events += await step();
  })();
  // A failure is thrown by stop(), which awaits `done`; until then it is not an unhandled rejection.
  done.catch(() => undefined);
  return {
    name,
    stop: async () => {
      running = false;
      await done;
      await cleanUp();
      return events;
    },
  };
}

function allReader(url: string): Scan {
  let next: string | undefined = `${url}/streams/%24all/${ALL_START}/forward/${ALL_PAGE_EVENTS}`;
  return loop('$all reader', async () => {
    if (next === undefined) return 0; // Caught up with the log's end within the round.
    const feed = feedOf(await call('GET', `${next}?embed=body`, 200, { accept: ATOM_JSON }));
    // The `previous` link of a forward page is the next page; it has no query, so embed is added again.
    next = linkOf(feed, 'previous')?.split('?')[0];
    return feed.entries.length;
  });
}

async function subscriber(url: string, group: string): Promise<Scan> {
  const groupUrl = `${url}/subscriptions/${SUBSCRIBED_STREAM}/${group}`;
  const settings = { startFrom: 0, readBatchSize: SUBSCRIPTION_BATCH, bufferSize: SUBSCRIPTION_BATCH * 5, messageTimeoutMilliseconds: 60_000 };
  await call('PUT', groupUrl, 201, { 'content-type': 'application/json' }, JSON.stringify(settings));
  return loop('subscription', async () => {
    const feed = feedOf(await call('GET', `${groupUrl}/${SUBSCRIPTION_BATCH}?embed=body`, 200, { accept: COMPETING_JSON, 'svc-longpoll': '1' }));
    const ackAll = linkOf(feed, 'ackAll');
    if (ackAll !== undefined) await call('POST', ackAll, 202);
    return feed.entries.length;
  }, async () => void await call('DELETE', groupUrl, 200));
}

async function projection(url: string, name: string): Promise<Scan> {
  await call('POST', `${url}/projections/continuous?name=${name}&type=JS&enabled=yes&emit=no`, 201, { 'content-type': 'application/javascript' }, PROJECTION_SOURCE);
  return {
    name: 'projection',
    stop: async () => {
      const view = JSON.parse(await call('GET', `${url}/projection/${name}`, 200)) as { status: string; stateReason: string; eventsProcessedAfterRestart: number };
      if (view.status.startsWith('Faulted')) throw new Error(`projection ${name} faulted: ${view.stateReason}`);
      await call('POST', `${url}/projection/${name}/command/disable`, 200);
      return view.eventsProcessedAfterRestart;
    },
  };
}

function randomStreamReader(url: string, eventsPerStream: number): Scan {
  const random = (below: number) => Math.floor(Math.random() * below);
  return loop('random streams', async () => {
    const page = `${url}/streams/${streamName(random(STREAMS))}/${random(eventsPerStream)}/backward/${STREAM_PAGE_EVENTS}?embed=body`;
    return feedOf(await call('GET', page, 200, { accept: ATOM_JSON })).entries.length;
  });
}

type Starter = (url: string, round: string, eventsPerStream: number) => Scan | Promise<Scan>;

/** The readers by the names SVC_BENCH_COLD_READERS picks them with. */
const READERS: Record<string, Starter> = {
  all: (url) => allReader(url),
  subscription: (url, round) => subscriber(url, `scan-${round}`),
  projection: (url, round) => projection(url, `scan-${round}`),
  streams: (url, _round, eventsPerStream) => randomStreamReader(url, eventsPerStream),
};

/** `names`, comma-separated, checked against the readers there are; every reader when empty. */
export function readerNames(names: string): string[] {
  const wanted = names === '' ? Object.keys(READERS) : names.split(',').map((name) => name.trim());
  const unknown = wanted.filter((name) => !(name in READERS));
  if (unknown.length > 0) throw new Error(`unknown reader ${unknown.join(', ')} in SVC_BENCH_COLD_READERS; readers: ${Object.keys(READERS).join(', ')}`);
  return wanted;
}

/** Starts the readers `names` from the start of the log; `round` names the round's group and projection. */
export async function startScans(names: readonly string[], url: string, round: string, eventsPerStream: number): Promise<Scan[]> {
  const scans: Scan[] = [];
  for (const name of names) scans.push(await READERS[name](url, round, eventsPerStream));
  return scans;
}
