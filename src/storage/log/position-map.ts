import { readInt64, writeInt64 } from './int64.js';

/**
 * The position map of a rewritten (scavenged) chunk: one entry per record it kept, the record's
 * logical offset in the chunk (its log position less the chunk's start) and its physical offset
 * in the chunk's data. A scavenged chunk holds fewer records than were written, packed together,
 * so the two differ; log positions never change. Entries are sorted by logical offset.
 *
 * On disk each entry is 12 bytes: the physical offset (uint32) then the logical offset (int64),
 * written after the records of a completed chunk.
 */
export const POSITION_MAP_ENTRY_BYTES = 12;

export interface MappedRecord {
  /** Offset in the chunk's logical space (log position − chunk start). */
  logical: number;
  /** Offset of the record's frame in the chunk's data. */
  physical: number;
}

export class PositionMap {
  private constructor(private readonly logicals: Float64Array, private readonly physicals: Uint32Array) {}

  static fromEntries(entries: readonly MappedRecord[]): PositionMap {
    const logicals = new Float64Array(entries.length);
    const physicals = new Uint32Array(entries.length);
    entries.forEach((entry, i) => {
      if (i > 0 && entry.logical <= entries[i - 1].logical) throw new TypeError('position map entries must ascend by logical offset');
      logicals[i] = entry.logical;
      physicals[i] = entry.physical;
    });
    return new PositionMap(logicals, physicals);
  }

  /** Decodes a map; returns a description of the problem for bytes that are not one. */
  static decode(bytes: Buffer): PositionMap | string {
    if (bytes.length % POSITION_MAP_ENTRY_BYTES !== 0) return `position map of ${bytes.length} bytes is not a whole number of entries`;
    const entries: MappedRecord[] = [];
    for (let offset = 0; offset < bytes.length; offset += POSITION_MAP_ENTRY_BYTES) {
      const entry = { physical: bytes.readUInt32LE(offset), logical: readInt64(bytes, offset + 4) };
      if (entries.length > 0 && entry.logical <= entries[entries.length - 1].logical) return 'position map entries do not ascend';
      entries.push(entry);
    }
    return PositionMap.fromEntries(entries);
  }

  encode(): Buffer {
    const bytes = Buffer.alloc(this.size * POSITION_MAP_ENTRY_BYTES);
    for (let i = 0; i < this.size; i++) {
      bytes.writeUInt32LE(this.physicals[i], i * POSITION_MAP_ENTRY_BYTES);
      writeInt64(bytes, i * POSITION_MAP_ENTRY_BYTES + 4, this.logicals[i]);
    }
    return bytes;
  }

  get size(): number {
    return this.logicals.length;
  }

  entry(index: number): MappedRecord {
    return { logical: this.logicals[index], physical: this.physicals[index] };
  }

  /** The index of the first entry at or after `logical`; `size` when there is none. */
  firstAtOrAfter(logical: number): number {
    let low = 0;
    let high = this.logicals.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.logicals[middle] < logical) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The physical offset of the record at exactly `logical`, or undefined when none starts there. */
  physicalOf(logical: number): number | undefined {
    const index = this.firstAtOrAfter(logical);
    return index < this.size && this.logicals[index] === logical ? this.physicals[index] : undefined;
  }
}
