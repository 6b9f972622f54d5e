/**
 * How `svcdb stream read` and `tail` print events. A line per event; with --json one JSON
 * object per line (NDJSON), its `data` and `metadata` the stored JSON text spliced in as it is,
 * so numbers wider than a double, `1.0` and escapes read back exactly as they were appended.
 */
import { isJsonText } from './event-input.js';
import type { ReadEvent } from './feed-page.js';

/** Stored text as a JSON value: itself when it is JSON, else a JSON string of it. */
function jsonValue(text: string, storedAsJson: boolean): string {
  return storedAsJson && isJsonText(text) ? text.trim() : JSON.stringify(text);
}

export function eventJsonLine(event: ReadEvent): string {
  const metadata = event.metadata === '' ? 'null' : jsonValue(event.metadata, true);
  return `{"stream":${JSON.stringify(event.stream)},"eventNumber":${event.eventNumber},"eventType":${JSON.stringify(event.eventType)},`
    + `"eventId":${JSON.stringify(event.eventId)},"created":${JSON.stringify(event.created)},"isJson":${event.isJson},`
    + `"data":${jsonValue(event.data, event.isJson)},"metadata":${metadata}}`;
}

/** `0@orders-1  OrderPlaced  {"total":5}`: number@stream, type and data as stored. */
export function eventTextLine(event: ReadEvent): string {
  return `${event.eventNumber}@${event.stream}\t${event.eventType}\t${event.data}`;
}
