/**
 * The writes a replica received, as the engine publishes its own commits: one per event record
 * of the log between two positions, so that the index, the stream caches and the commit hooks
 * (credentials, default ACLs, projections' run-as users) take the leader's records the way they
 * take a local commit. Only metadata events (`$$` streams) are decoded whole: the engine reads
 * their data for its metadata cache, and nothing that hears of a commit reads the data of any
 * other event (the index takes the stream and number, the hooks the stream name), so the rest
 * stay undecoded, which is most of a catch-up's work saved.
 */
import { RecordKind, decodeRecord, isJsonEvent, peekEventKey } from '../log/record.js';
import type { TransactionLog } from '../log/transaction-log.js';
import { isMetadataStream } from './stream-metadata.js';
import type { CommittedWrite, NewEvent } from './write-types.js';

const UNREAD = Buffer.alloc(0);

export function replicatedWrites(log: TransactionLog, from: number, to: number): CommittedWrite[] {
  const writes: CommittedWrite[] = [];
  log.scan(from, to, (buffer, offset, position) => {
    const key = peekEventKey(buffer, offset);
    if (!key) return;
    const { streamName, eventNumber } = key;
    let event: NewEvent = { eventId: '', eventType: '', data: UNREAD, metadata: UNREAD, isJson: false };
    if (isMetadataStream(streamName)) {
      const record = decodeRecord(buffer, offset);
      if (record.kind !== RecordKind.event) return;
      event = { eventId: record.eventId, eventType: record.eventType, data: record.data, metadata: record.metadata, isJson: isJsonEvent(record) };
    }
    writes.push({ streamName, firstEventNumber: eventNumber, lastEventNumber: eventNumber, positions: [position], events: [event] });
  });
  return writes;
}
