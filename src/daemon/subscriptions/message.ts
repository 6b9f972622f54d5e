/**
 * A message of a group: one event of the subscribed stream (a link record itself when the stream
 * holds links), with how often it was delivered before. Its id is the record's event id, which
 * is what consumers acknowledge.
 */
import type { EventRecord } from '../../storage/log/record.js';

export interface Message {
  id: string;
  /** The record's event number in the subscribed stream. */
  eventNumber: number;
  record: EventRecord;
  /** Earlier deliveries. */
  retryCount: number;
  /** Set for a parked message being replayed: its event number in the parked stream. */
  parkedNumber?: number;
}

export function messageOf(record: EventRecord, retryCount = 0, parkedNumber?: number): Message {
  const message: Message = { id: record.eventId, eventNumber: record.eventNumber, record, retryCount };
  if (parkedNumber !== undefined) message.parkedNumber = parkedNumber;
  return message;
}
