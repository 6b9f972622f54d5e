/**
 * The writes a replica received, as the engine publishes its own commits: one per event record
 * of the log between two positions, so that the index, the stream caches and the commit hooks
 * (credentials, default ACLs) take the leader's records the way they take a local commit.
 */
import { RecordKind, decodeRecord, isJsonEvent, peekEventKey } from '../log/record.js';
import type { TransactionLog } from '../log/transaction-log.js';
import type { CommittedWrite } from './write-types.js';

export function replicatedWrites(log: TransactionLog, from: number, to: number): CommittedWrite[] {
  const writes: CommittedWrite[] = [];
  log.scan(from, to, (buffer, offset, position) => {
    if (!peekEventKey(buffer, offset)) return;
    const record = decodeRecord(buffer, offset);
    if (record.kind !== RecordKind.event) return;
    const { streamName, eventNumber, eventId, eventType, data, metadata } = record;
    writes.push({
      streamName, firstEventNumber: eventNumber, lastEventNumber: eventNumber, positions: [position],
      events: [{ eventId, eventType, data, metadata, isJson: isJsonEvent(record) }],
    });
  });
  return writes;
}
