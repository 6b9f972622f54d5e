/**
 * The frames of the replication stream (docs/replication.md): a type byte, a u32 little-endian
 * payload length, the payload. Integers are little-endian; positions are int64.
 */
import { Errors } from '../../common/errors.js';

export const FrameType = {
  /** u32 start chunk number, u32 end chunk number, u32 file version, i64 file bytes: a completed chunk file follows. */
  chunkFileBegin: 1,
  /** The next bytes of that file. */
  chunkFileData: 2,
  /** The file is whole: 16-byte hash from its footer. */
  chunkFileEnd: 3,
  /** The 128-byte header of the ongoing chunk, before its records. */
  chunkHeader: 4,
  /** i64 log position, then whole records from there. */
  records: 5,
  /** u32 chunk number, u32 data bytes, 16-byte hash: the leader completed that chunk there. */
  chunkCompleted: 6,
  /** i64 the leader's durable end (writer checkpoint), i64 the leader's time in ms since the Unix epoch. */
  heartbeat: 7,
} as const;

export type FrameTypeCode = (typeof FrameType)[keyof typeof FrameType];

export const FRAME_HEAD_BYTES = 5;
/** Bytes of records or chunk file a frame carries at most (a longer record goes alone). */
export const FRAME_DATA_BYTES_MAX = 1024 * 1024;
/** The longest payload a follower accepts: one record of the largest size and its position. */
export const FRAME_PAYLOAD_BYTES_MAX = 17 * 1024 * 1024;

export interface Frame {
  type: number;
  payload: Buffer;
}

export function encodeFrame(type: FrameTypeCode, ...parts: Buffer[]): Buffer {
  const length = parts.reduce((total, part) => total + part.length, 0);
  const head = Buffer.allocUnsafe(FRAME_HEAD_BYTES);
  head[0] = type;
  head.writeUInt32LE(length, 1);
  return Buffer.concat([head, ...parts], FRAME_HEAD_BYTES + length);
}

export function int64(value: number): Buffer {
  const bytes = Buffer.allocUnsafe(8);
  bytes.writeBigInt64LE(BigInt(value));
  return bytes;
}

export function uint32s(...values: number[]): Buffer {
  const bytes = Buffer.allocUnsafe(4 * values.length);
  values.forEach((value, i) => bytes.writeUInt32LE(value, 4 * i));
  return bytes;
}

export function readInt64(payload: Buffer, offset: number): number {
  return Number(payload.readBigInt64LE(offset));
}

/** Cuts a byte stream into frames as its pieces arrive. */
export class FrameReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  /** The frames completed by `piece`, in order. */
  push(piece: Buffer): Frame[] {
    this.pending.push(piece);
    this.pendingBytes += piece.length;
    const frames: Frame[] = [];
    while (this.pendingBytes >= FRAME_HEAD_BYTES) {
      const head = this.peek(FRAME_HEAD_BYTES);
      const length = head.readUInt32LE(1);
      if (length > FRAME_PAYLOAD_BYTES_MAX) throw Errors.replicationProtocol.create(`a frame of ${length} bytes is longer than ${FRAME_PAYLOAD_BYTES_MAX}`);
      if (this.pendingBytes < FRAME_HEAD_BYTES + length) break;
      const whole = this.take(FRAME_HEAD_BYTES + length);
      frames.push({ type: whole[0], payload: whole.subarray(FRAME_HEAD_BYTES) });
    }
    return frames;
  }

  private peek(bytes: number): Buffer {
    if (this.pending[0].length < bytes) this.pending = [Buffer.concat(this.pending)];
    return this.pending[0];
  }

  private take(bytes: number): Buffer {
    const all = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
    this.pending = all.length > bytes ? [all.subarray(bytes)] : [];
    this.pendingBytes -= bytes;
    return all.subarray(0, bytes);
  }
}
