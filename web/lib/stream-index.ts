/**
 * Finding streams: the node keeps no list of stream names to page through, so the console reads
 * `$all` backwards (a filtered read, so the node skips what is not asked for) and gathers the
 * streams it meets: the order they were last written in ("recently changed") and the ones whose
 * first event it saw ("recently created"). This works whether or not the system projections that
 * keep `$streams` run. A prefix search is the same read with the node's stream-name prefix filter.
 */
import { linkOf, type Feed, type FeedEntry } from './feed.js';

/** Events read per request while gathering names. */
export const SCAN_PAGE_COUNT = 100;

export interface StreamSummary {
  stream: string;
  /** The newest event number seen, and when it was written. */
  lastEventNumber: string;
  lastUpdated: string;
}

/** The streams met so far, newest write first, and where the scan goes on. */
export interface StreamScan {
  streams: StreamSummary[];
  /** Streams whose first event the scan reached, newest creation first. */
  created: StreamSummary[];
  /** The next (older) page of the filtered read; undefined once the start of the log is reached. */
  next: string | undefined;
}

/** The first page of the scan: every stream, system streams included when asked, or those starting with `prefix`. */
export function scanStart(prefix: string, includeSystem: boolean): string {
  const query = new URLSearchParams();
  if (prefix !== '') {
    query.set('context', 'streamid');
    query.set('type', 'prefix');
    query.set('data', prefix);
  }
  // The node's own events ($-types: links, metadata, users) are left out unless asked for.
  if (!includeSystem) query.set('exclude-system-events', 'true');
  return `/streams/%24all/filtered/head/backward/${SCAN_PAGE_COUNT}?embed=rich&${query.toString()}`;
}

/** The scan with one more page of `$all` taken in. */
export const EMPTY_SCAN: StreamScan = Object.freeze({ streams: [], created: [], next: undefined });

export function scanPage(scan: StreamScan, page: Feed): StreamScan {
  const byName = new Map(scan.streams.map((summary) => [summary.stream, summary]));
  const created = [...scan.created];
  // Pages go back in time: the first entry met of a stream is its newest; its event 0, when
  // met, is its creation.
  for (const entry of page.entries) {
    const summary = summaryOf(entry);
    if (summary === undefined) continue;
    if (!byName.has(summary.stream)) byName.set(summary.stream, summary);
    if (summary.lastEventNumber === '0') created.push(byName.get(summary.stream) ?? summary);
  }
  // An empty page, or one without a link to older events, is the start of the log.
  const next = page.entries.length === 0 ? undefined : linkOf(page.links, 'next')?.uri;
  return { streams: [...byName.values()], created, next };
}

function summaryOf(entry: FeedEntry): StreamSummary | undefined {
  if (entry.streamId === undefined || entry.eventNumber === undefined) return undefined;
  return { stream: entry.streamId, lastEventNumber: String(entry.eventNumber), lastUpdated: entry.updated };
}
