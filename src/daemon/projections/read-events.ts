/**
 * POST /projections/read-events: the events a query definition would be given, from a position,
 * without running any projection. The definition names its sources as a projection's selectors
 * do: `{"all": true}`, `{"streams": [..]}` or `{"categories": [..]}`.
 */
import { Errors } from '../../common/errors.js';
import type { Engine } from '../../storage/engine.js';
import { isJsonEvent } from '../../storage/log/record.js';
import type { EventSelector } from './processor.js';
import { sourceStreams } from './definition.js';
import { selectEvents } from './select-events.js';

export type ReadEventsStorage = Pick<Engine, 'readAllForward' | 'readEvent'>;

export interface ReadEventsRequest {
  selector: EventSelector;
  position: number;
  maxEvents: number;
}

const MAX_EVENTS_LIMIT = 4096;
/** Log records looked at per call when the selection matches rarely. */
const SCAN_RECORDS_MAX = 100_000;

const names = (value: unknown, field: string): string[] => {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && item !== '')) {
    throw Errors.projectionRequestInvalid.create(`query.${field} must be an array of non-empty names`);
  }
  return value as string[];
};

function positionOf(value: unknown): number {
  if (value === undefined || value === null) return 0;
  const raw = typeof value === 'object' ? (value as Record<string, unknown>).$p ?? (value as Record<string, unknown>).$c : value;
  if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < 0) {
    throw Errors.projectionRequestInvalid.create('position must be a log position, or {"$c": position, "$p": position}');
  }
  return raw;
}

export function parseReadEventsRequest(body: unknown): ReadEventsRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw Errors.projectionRequestInvalid.create('the body must be a JSON object {"query": {...}, "position": ..., "maxEvents": n}');
  }
  const { query, position, maxEvents } = body as Record<string, unknown>;
  if (query === null || typeof query !== 'object') throw Errors.projectionRequestInvalid.create('query must be an object such as {"all": true} or {"streams": ["s"]}');
  const definition = query as Record<string, unknown>;
  const streams = names(definition.streams, 'streams');
  const categories = names(definition.categories, 'categories');
  const all = definition.all === true || definition.allStreams === true;
  if (!all && streams.length === 0 && categories.length === 0) {
    throw Errors.projectionRequestInvalid.create('query selects nothing: give "all": true, "streams" or "categories"');
  }
  const max = maxEvents === undefined ? 10 : maxEvents;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > MAX_EVENTS_LIMIT) {
    throw Errors.projectionRequestInvalid.create(`maxEvents must be an integer from 1 to ${MAX_EVENTS_LIMIT}`);
  }
  const selector: EventSelector = {
    all, streams: new Set(sourceStreams({ streams, categories })), includeLinks: definition.includeLinks === true, resolveLinks: !all, deletions: false,
  };
  return { selector, position: positionOf(position), maxEvents: max };
}

const tag = (position: number) => ({ $c: position, $p: position });

/** `mayRead`: which streams links may be resolved into, for a caller held to its stream rights. */
export function readEvents(storage: ReadEventsStorage, request: ReadEventsRequest, mayRead?: (streamName: string) => boolean): Record<string, unknown> {
  const events: Array<Record<string, unknown>> = [];
  let position = request.position;
  let scanned = 0;
  while (events.length < request.maxEvents && scanned < SCAN_RECORDS_MAX) {
    const page = storage.readAllForward(position, Math.min(500, request.maxEvents * 4));
    scanned += page.events.length;
    let index = 0;
    for (; index < page.events.length && events.length < request.maxEvents; index++) {
      for (const source of selectEvents(request.selector, storage, [page.events[index]], Number.POSITIVE_INFINITY, mayRead)) {
        const { event, link } = source;
        const after = index + 1 < page.events.length ? page.events[index + 1].logPosition : page.nextPosition;
        events.push({
          eventStreamId: event.streamName, eventNumber: event.eventNumber, eventType: event.eventType,
          data: event.data.toString('utf8'), metadata: event.metadata.toString('utf8'), linkMetadata: link ? link.metadata.toString('utf8') : null,
          isJson: isJsonEvent(event), readerPosition: tag(after),
        });
      }
    }
    // Reading goes on after the last record looked at: the next one's position, or the page's end.
    position = index < page.events.length ? page.events[index].logPosition : page.nextPosition;
    if (page.isEnd || page.events.length === 0) break;
  }
  return { correlationId: crypto.randomUUID(), readerPosition: tag(position), events };
}
