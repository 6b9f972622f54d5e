/**
 * The leader's side of one replica's stream: from the position the handshake agreed on, it sends
 * the completed chunk files the replica lacks, then the ongoing chunk's header and records as
 * they become durable, each chunk's completion with its hash, and heartbeats with the leader's
 * durable end and clock. It waits on the sink (a slow replica holds the leader to a frame in
 * flight, never more) and on commits (told by the engine's log consumers, no polling).
 */
import { CHUNK_HASH_BYTES } from '../../storage/log/chunk-format.js';
import type { LogBytes } from '../../storage/read/log-bytes.js';
import { FRAME_DATA_BYTES_MAX, FrameType, encodeFrame, int64, uint32s } from './frames.js';

/** Where frames go: `write` resolves once the transport takes more (a socket's 'drain'). */
export interface FrameSink {
  write(frame: Buffer): Promise<void>;
  /** True once the replica hung up or the node is stopping. */
  readonly closed: boolean;
}

export interface ShipperDependencies {
  bytes: LogBytes;
  sink: FrameSink;
  /** Resolves after the next commit, or after `timeoutMs`, or once the sink closes. */
  nextCommit(timeoutMs: number): Promise<void>;
  clock: () => number;
  heartbeatMs: number;
  /** Counts what was sent, for stats, and the log position the stream has reached. */
  sent?: (bytes: number, position: number) => void;
}

/** How long to wait when the durable end is past a chunk the log has not opened yet. */
const CHUNK_SWITCH_WAIT_MS = 10;

export class LogShipper {
  private headerSentFor = -1;
  private position = 0;

  constructor(private readonly deps: ShipperDependencies) {}

  async run(from: number): Promise<void> {
    const { bytes, sink, clock, heartbeatMs } = this.deps;
    let position = from;
    this.position = from;
    let lastHeartbeatMs = -Infinity;
    while (!sink.closed) {
      const next = await this.step(position);
      if (next !== undefined) position = this.position = next;
      // Where the leader is: whenever the replica has all there is, and now and then under load.
      const now = clock();
      if (next === undefined || now - lastHeartbeatMs >= heartbeatMs) {
        await this.send(encodeFrame(FrameType.heartbeat, int64(bytes.durableEnd), int64(now)));
        lastHeartbeatMs = now;
      }
      if (next !== undefined) continue;
      // Nothing more yet: wait for a commit. Durable bytes past a chunk the writer has not opened
      // yet (it is completing the one before) come within a moment.
      await this.deps.nextCommit(bytes.durableEnd > position ? CHUNK_SWITCH_WAIT_MS : heartbeatMs);
    }
  }

  /** Sends what follows `position`; returns the position after it, or undefined when there is nothing yet. */
  private async step(position: number): Promise<number | undefined> {
    const { bytes } = this.deps;
    const number = Math.floor(position / bytes.chunkSize);
    const facts = bytes.chunkFacts(number);
    if (facts === undefined || position >= bytes.durableEnd && !facts.completed) return undefined;
    const local = position - facts.startNumber * bytes.chunkSize;
    const chunkEnd = (facts.endNumber + 1) * bytes.chunkSize;
    // A chunk the replica lacks goes whole; so does a rewritten one, whose records are not at their positions.
    if (facts.completed && (local === 0 || facts.mapped)) {
      await this.sendChunkFile(number);
      return chunkEnd;
    }
    if (this.headerSentFor !== number) {
      await this.send(encodeFrame(FrameType.chunkHeader, bytes.headerBytes(number)));
      this.headerSentFor = number;
    }
    const records = await bytes.records(position, FRAME_DATA_BYTES_MAX);
    if (records.length > 0) {
      await this.send(encodeFrame(FrameType.records, int64(position), records));
      return position + records.length;
    }
    if (!facts.completed) return undefined;
    const hash = await bytes.chunkHash(number);
    await this.send(encodeFrame(FrameType.chunkCompleted, uint32s(number, facts.dataBytes), hash));
    return chunkEnd;
  }

  private async sendChunkFile(number: number): Promise<void> {
    const file = this.deps.bytes.openChunkFile(number);
    const { facts } = file;
    await this.send(encodeFrame(FrameType.chunkFileBegin, uint32s(facts.startNumber, facts.endNumber, facts.version), int64(facts.fileBytes)));
    let hash = Buffer.alloc(0);
    for (let offset = 0; offset < facts.fileBytes && !this.deps.sink.closed;) {
      const block = Buffer.allocUnsafe(Math.min(FRAME_DATA_BYTES_MAX, facts.fileBytes - offset));
      const read = await file.read(block, offset);
      if (read === 0) throw new RangeError(`chunk file ${number} ended at ${offset} of ${facts.fileBytes} bytes`);
      await this.send(encodeFrame(FrameType.chunkFileData, block.subarray(0, read)));
      offset += read;
      // The hash is the file's last bytes: taken from what was sent, so it is the file's as shipped.
      hash = read >= CHUNK_HASH_BYTES ? Buffer.from(block.subarray(read - CHUNK_HASH_BYTES, read)) : Buffer.concat([hash, block.subarray(0, read)]).subarray(-CHUNK_HASH_BYTES);
    }
    await this.send(encodeFrame(FrameType.chunkFileEnd, hash));
  }

  private async send(frame: Buffer): Promise<void> {
    await this.deps.sink.write(frame);
    this.deps.sent?.(frame.length, this.position);
  }
}
