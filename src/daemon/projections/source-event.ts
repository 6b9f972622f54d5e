/**
 * An event as a projection receives it: the record read from the log (the target of a link when
 * the link was resolved), the link it came through, and whether it marks its stream's deletion.
 * `position` is where the record (or its link) sits in the log: emitted events name it, and the
 * projection's checkpoint moves past it.
 */
import { isJsonEvent, type EventRecord } from '../../storage/log/record.js';

export interface SourceEvent {
  event: EventRecord;
  link?: EventRecord;
  deleted: boolean;
  /** With `deleted`: the stream deleted (a soft delete's record is in its metadata stream). */
  deletedStream?: string;
  position: number;
}

const text = (bytes: Buffer) => (bytes.length === 0 ? '' : bytes.toString('utf8'));

/**
 * The batch handed to the sandbox: one JSON array per event, in the order the runtime reads it
 * ([stream, number, type, id, isJson, data, metadata, link metadata, position, deleted]).
 */
export function batchJson(events: readonly SourceEvent[]): string {
  const rows = new Array<unknown[]>(events.length);
  for (let i = 0; i < events.length; i++) {
    const { event, link, deleted, deletedStream, position } = events[i];
    rows[i] = [
      deletedStream ?? event.streamName, event.eventNumber, event.eventType, event.eventId, isJsonEvent(event) ? 1 : 0,
      text(event.data), text(event.metadata), link ? text(link.metadata) : '', position, deleted ? 1 : 0,
    ];
  }
  return JSON.stringify(rows);
}
