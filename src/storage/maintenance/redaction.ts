/**
 * Redaction of an event record in place: its data bytes become 0xFF (the length, and so every
 * log position, stays), its IsRedacted flag is set and its checksum recomputed. Event type,
 * metadata, timestamp and every other byte stay as written. Readers show a redacted event's data
 * as empty (entry.ts), whatever bytes hold its place.
 */
import { EventFlags, checkFrame, eventFrameLayout, resealFrame } from '../log/record.js';

const REDACTED_BYTE = 0xff;

/**
 * Redacts the event record framed at `offset` of `buffer`. Returns false, changing nothing, for
 * a system record or an event already redacted.
 */
export function redactFrame(buffer: Buffer, offset: number): boolean {
  const layout = eventFrameLayout(buffer, offset);
  if (!layout) return false;
  const flags = buffer.readUInt16LE(offset + layout.flagsOffset);
  if ((flags & EventFlags.isRedacted) !== 0) return false;
  buffer.fill(REDACTED_BYTE, offset + layout.dataOffset, offset + layout.dataOffset + layout.dataLength);
  buffer.writeUInt16LE(flags | EventFlags.isRedacted, offset + layout.flagsOffset);
  resealFrame(buffer, offset);
  return true;
}

/** Whether the whole frame `bytes` is an event record with its IsRedacted flag set. */
export function isRedactedFrame(bytes: Buffer): boolean {
  const layout = eventFrameLayout(bytes, 0);
  return layout !== undefined && (bytes.readUInt16LE(layout.flagsOffset) & EventFlags.isRedacted) !== 0;
}

function rangeIs(bytes: Buffer, start: number, end: number, value: number): boolean {
  for (let i = start; i < end; i++) if (bytes[i] !== value) return false;
  return true;
}

/**
 * Whether `replacement` may stand for `original` (whole frames) in a redacted chunk: the same
 * bytes, or the same length and bytes but for a data section of 0xFF only, the IsRedacted flag
 * added to the same flags, and a checksum that holds.
 */
export function acceptsRedaction(original: Buffer, replacement: Buffer): boolean {
  if (original.equals(replacement)) return true;
  if (original.length !== replacement.length) return false;
  const layout = eventFrameLayout(original, 0);
  if (!layout || checkFrame(replacement, 0, replacement.length).problem !== undefined) return false;
  const { flagsOffset, checksumOffset, dataOffset, dataLength } = layout;
  const dataEnd = dataOffset + dataLength;
  const flags = original.readUInt16LE(flagsOffset);
  if (replacement.readUInt16LE(flagsOffset) !== (flags | EventFlags.isRedacted)) return false;
  if (!rangeIs(replacement, dataOffset, dataEnd, REDACTED_BYTE)) return false;
  const same = (start: number, end: number) => original.subarray(start, end).equals(replacement.subarray(start, end));
  return same(0, checksumOffset) && same(checksumOffset + 4, flagsOffset) && same(flagsOffset + 2, dataOffset) && same(dataEnd, original.length);
}
