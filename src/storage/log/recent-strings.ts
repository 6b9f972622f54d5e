/**
 * Strings decoded from short UTF-8 byte ranges, kept for reuse: a walk over the log meets the
 * same stream names and event types again and again, and comparing a few dozen bytes with a kept
 * copy costs less than decoding a new string each time (and leaves no garbage behind). Direct
 * mapped: each range has one slot, chosen by its length and a few of its bytes, where it replaces
 * whatever was kept before.
 */
export class RecentStrings {
  private readonly texts: string[];
  private readonly lengths: Int32Array;
  private readonly kept: Buffer;

  /** `slots`: a power of two; ranges longer than `bytesMax` are decoded every time. */
  constructor(private readonly slots: number, private readonly bytesMax: number) {
    if (slots <= 0 || (slots & (slots - 1)) !== 0) throw new RangeError('slots must be a power of two');
    this.texts = new Array<string>(slots).fill('');
    this.lengths = new Int32Array(slots).fill(-1);
    this.kept = Buffer.alloc(slots * bytesMax);
  }

  /** buffer[start, start + length) decoded as UTF-8. */
  read(buffer: Buffer, start: number, length: number): string {
    if (length === 0) return '';
    if (length > this.bytesMax) return buffer.toString('utf8', start, start + length);
    const slot = (length * 31 + buffer[start] * 7 + buffer[start + (length >> 1)] * 3 + buffer[start + length - 1] * 13) & (this.slots - 1);
    const at = slot * this.bytesMax;
    const { kept } = this;
    if (this.lengths[slot] === length) {
      let i = 0;
      while (i < length && buffer[start + i] === kept[at + i]) i++;
      if (i === length) return this.texts[slot];
    }
    const text = buffer.toString('utf8', start, start + length);
    for (let i = 0; i < length; i++) kept[at + i] = buffer[start + i];
    this.lengths[slot] = length;
    this.texts[slot] = text;
    return text;
  }
}
