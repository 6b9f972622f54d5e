/**
 * MD5 of up to four messages at once (md5-lanes-kernel.ts), for work that hashes several chunk
 * files side by side: a redaction writes and checks one copy per chunk. Each lane has buffers
 * ("slots") in the kernel's memory; the caller reads a message's next bytes straight into its
 * lane's slot and hashes the slots of all lanes in one call, so no byte is copied on the way.
 * While one slot is hashed the next can be filled (the memory never moves: it does not grow).
 */
import { createHash, type Hash } from 'node:crypto';
import { MD5_LANES, MD5_LANES_STATE_BYTES, md5LanesModuleBytes } from './md5-lanes-kernel.js';

/** MD5 of several messages fed side by side, each lane from its own slots. */
export interface Md5Streams {
  readonly slotBytes: number;
  /** Where the caller puts the next bytes of lane `lane`'s message. */
  buffer(lane: number, slot: number): Buffer;
  /** Hashes the first `lengths[lane]` bytes of each lane's slot `slot`; only a lane's last update may be a partial block. */
  update(slot: number, lengths: readonly number[]): void;
  /** The MD5 of lane `lane`'s message; the lane starts a new message after it. */
  digest(lane: number): Buffer;
}

const BLOCK_BYTES = 64;
/** Room for a message's last bytes and its padding: at most two blocks. */
const PAD_BYTES = 2 * BLOCK_BYTES;
const PAGE_BYTES = 64 * 1024;
const INITIAL_STATE = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];

type BlocksFunction = (state: number, lane0: number, lane1: number, lane2: number, lane3: number, count: number) => void;

let compiled: WebAssembly.Module | undefined;

const alignUp = (value: number, alignment: number) => Math.ceil(value / alignment) * alignment;

export class Md5Lanes implements Md5Streams {
  static readonly lanes = MD5_LANES;

  private readonly view: DataView;
  private readonly heap: Uint8Array;
  private readonly blocks: BlocksFunction;
  private readonly padOffset: number;
  /** A block hashed by lanes that have nothing to hash; their state is put back afterwards. */
  private readonly idleOffset: number;
  private readonly slotsOffset: number;
  private readonly bytesHashed = Array<number>(MD5_LANES).fill(0);
  /** Bytes of a lane's message held in its pad area once the message has ended, or -1 while it goes on. */
  private readonly tailBytes = Array<number>(MD5_LANES).fill(-1);

  /** `slotBytes` (a multiple of 64) per slot, `slots` per lane. */
  constructor(readonly slotBytes: number, readonly slots = 2) {
    if (!Number.isInteger(slotBytes) || slotBytes <= 0 || slotBytes % BLOCK_BYTES !== 0) throw new TypeError(`slotBytes ${slotBytes} is not a positive multiple of 64`);
    this.padOffset = alignUp(MD5_LANES_STATE_BYTES, 64);
    this.idleOffset = this.padOffset + MD5_LANES * PAD_BYTES;
    this.slotsOffset = this.idleOffset + BLOCK_BYTES;
    const pages = Math.ceil((this.slotsOffset + MD5_LANES * slots * slotBytes) / PAGE_BYTES);
    const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
    compiled ??= new WebAssembly.Module(md5LanesModuleBytes());
    const instance = new WebAssembly.Instance(compiled, { env: { memory } });
    this.blocks = instance.exports.blocks as BlocksFunction;
    this.view = new DataView(memory.buffer);
    this.heap = new Uint8Array(memory.buffer);
    for (let lane = 0; lane < MD5_LANES; lane++) this.resetLane(lane);
  }

  /** Where the caller puts the next bytes of lane `lane`'s message. */
  buffer(lane: number, slot: number): Buffer {
    return Buffer.from(this.heap.buffer, this.slotOffset(lane, slot), this.slotBytes);
  }

  /**
   * Hashes the first `lengths[lane]` bytes of each lane's slot `slot` (0 for a lane with nothing
   * new). A length that is not a multiple of 64 ends that lane's message: digest() is next.
   */
  update(slot: number, laneLengths: readonly number[]): void {
    const lengths = Array.from({ length: MD5_LANES }, (_, lane) => laneLengths[lane] ?? 0);
    const counts = lengths.map((length, lane) => {
      if (length > 0 && this.tailBytes[lane] >= 0) throw new TypeError(`lane ${lane}'s message has ended; take its digest first`);
      if (!Number.isInteger(length) || length < 0 || length > this.slotBytes) throw new TypeError(`length ${length} does not fit a slot`);
      return Math.floor(length / BLOCK_BYTES);
    });
    this.run(lengths.map((_, lane) => this.slotOffset(lane, slot)), counts);
    lengths.forEach((length, lane) => {
      this.bytesHashed[lane] += length;
      const tail = length % BLOCK_BYTES;
      if (tail === 0) return;
      const start = this.slotOffset(lane, slot) + length - tail;
      this.heap.copyWithin(this.padOffset + lane * PAD_BYTES, start, start + tail);
      this.tailBytes[lane] = tail;
    });
  }

  /** The MD5 of lane `lane`'s message; the lane starts a new message after it. */
  digest(lane: number): Buffer {
    const tail = Math.max(0, this.tailBytes[lane]);
    const pad = this.padOffset + lane * PAD_BYTES;
    const blockCount = tail + 9 <= BLOCK_BYTES ? 1 : 2;
    this.heap.fill(0, pad + tail, pad + blockCount * BLOCK_BYTES);
    this.heap[pad + tail] = 0x80;
    const bits = this.bytesHashed[lane] * 8;
    const lengthAt = pad + blockCount * BLOCK_BYTES - 8;
    this.view.setUint32(lengthAt, bits >>> 0, true);
    this.view.setUint32(lengthAt + 4, Math.floor(bits / 2 ** 32), true);
    const counts = Array<number>(MD5_LANES).fill(0);
    counts[lane] = blockCount;
    this.run(counts.map(() => pad), counts);
    const digest = Buffer.alloc(16);
    for (let word = 0; word < 4; word++) digest.writeUInt32LE(this.stateWord(word, lane), word * 4);
    this.resetLane(lane);
    return digest;
  }

  private slotOffset(lane: number, slot: number): number {
    if (!Number.isInteger(lane) || lane < 0 || lane >= MD5_LANES || !Number.isInteger(slot) || slot < 0 || slot >= this.slots) {
      throw new TypeError(`no slot ${slot} of lane ${lane}`);
    }
    return this.slotsOffset + (lane * this.slots + slot) * this.slotBytes;
  }

  /** Hashes `counts[lane]` blocks from `offsets[lane]` into each lane, lanes with fewer blocks idle meanwhile. */
  private run(offsets: readonly number[], counts: readonly number[]): void {
    const remaining = [...counts];
    const at = [...offsets];
    for (;;) {
      const busy = remaining.filter((count) => count > 0);
      if (busy.length === 0) return;
      const count = Math.min(...busy);
      const idle = remaining.flatMap((left, lane) => (left === 0 ? [lane] : []));
      const saved = idle.map((lane) => [0, 1, 2, 3].map((word) => this.stateWord(word, lane)));
      const address = (lane: number) => (remaining[lane] > 0 ? at[lane] : this.idleOffset);
      this.blocks(0, address(0), address(1), address(2), address(3), count);
      idle.forEach((lane, i) => saved[i].forEach((value, word) => this.setStateWord(word, lane, value)));
      for (let lane = 0; lane < MD5_LANES; lane++) {
        if (remaining[lane] === 0) continue;
        remaining[lane] -= count;
        at[lane] += count * BLOCK_BYTES;
      }
    }
  }

  private resetLane(lane: number): void {
    INITIAL_STATE.forEach((value, word) => this.setStateWord(word, lane, value));
    this.bytesHashed[lane] = 0;
    this.tailBytes[lane] = -1;
  }

  private stateWord(word: number, lane: number): number {
    return this.view.getUint32(word * 16 + lane * 4, true);
  }

  private setStateWord(word: number, lane: number, value: number): void {
    this.view.setUint32(word * 16 + lane * 4, value, true);
  }
}

/** One OpenSSL hash per lane, fed one lane after another: faster than the lanes for one or two messages. */
class Md5Each implements Md5Streams {
  private readonly slots: Buffer[][];
  private readonly hashes: Hash[];

  constructor(lanes: number, readonly slotBytes: number, slots: number) {
    this.slots = Array.from({ length: lanes }, () => Array.from({ length: slots }, () => Buffer.allocUnsafe(slotBytes)));
    this.hashes = Array.from({ length: lanes }, () => createHash('md5'));
  }

  buffer(lane: number, slot: number): Buffer {
    const buffer = this.slots[lane]?.[slot];
    if (!buffer) throw new TypeError(`no slot ${slot} of lane ${lane}`);
    return buffer;
  }

  update(slot: number, lengths: readonly number[]): void {
    lengths.forEach((length, lane) => {
      if (length > 0) this.hashes[lane].update(this.buffer(lane, slot).subarray(0, length));
    });
  }

  digest(lane: number): Buffer {
    const digest = this.hashes[lane].digest();
    this.hashes[lane] = createHash('md5');
    return digest;
  }
}

/**
 * MD5 of `lanes` messages side by side (four at most): in the lanes of one Md5Lanes from three
 * messages on, where it beats hashing them one after another (four lanes cost what one does).
 */
export function md5Streams(lanes: number, slotBytes: number, slots = 2): Md5Streams {
  if (!Number.isInteger(lanes) || lanes < 1 || lanes > MD5_LANES) throw new TypeError(`${lanes} lanes: 1 to ${MD5_LANES}`);
  return lanes >= 3 ? new Md5Lanes(slotBytes, slots) : new Md5Each(lanes, slotBytes, slots);
}
