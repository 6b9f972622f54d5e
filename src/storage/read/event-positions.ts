/**
 * Where the records of an event lie, for the redactor: every record the index lists for
 * (stream, event number), duplicates included, each confirmed against the log (index hashes
 * collide), with the chunk file that holds it and the byte offset of its frame in that file.
 */
import { parseChunkFileName } from '../log/chunk-format.js';
import type { TableIndex } from '../index/table-index.js';
import { EventFlags, RecordKind } from '../log/record.js';
import type { TransactionLog } from '../log/transaction-log.js';

export interface EventPosition {
  logPosition: number;
  /** The chunk file's name (`chunk-000003.000001`) and the version in it. */
  chunkFileName: string;
  chunkVersion: number;
  /** Whether the chunk is completed; the redactor edits completed chunks only. */
  isCompleted: boolean;
  /** The byte offset in the file of the record's length prefix (header and position map applied). */
  fileOffset: number;
  eventType: string;
  isTombstone: boolean;
  isRedacted: boolean;
}

export function eventPositions(log: TransactionLog, index: TableIndex, streamName: string, eventNumber: number): EventPosition[] {
  const found: EventPosition[] = [];
  for (const entry of index.range(streamName, eventNumber, eventNumber)) {
    if (entry.logPosition >= log.readableEnd) continue;
    const record = log.readRecordIfKept(entry.logPosition);
    if (record?.kind !== RecordKind.event || record.streamName !== streamName || record.eventNumber !== eventNumber) continue;
    const { chunk, fileOffset } = log.locate(entry.logPosition);
    found.push({
      logPosition: entry.logPosition,
      chunkFileName: chunk.fileName,
      chunkVersion: parseChunkFileName(chunk.fileName)?.version ?? 0,
      isCompleted: chunk.isCompleted,
      fileOffset,
      eventType: record.eventType,
      isTombstone: (record.flags & EventFlags.streamDelete) !== 0,
      isRedacted: (record.flags & EventFlags.isRedacted) !== 0,
    });
  }
  return found;
}
