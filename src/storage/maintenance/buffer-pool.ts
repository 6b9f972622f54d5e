/**
 * Buffers of one size kept for reuse between rewrites: memory touched for the first time costs a
 * page fault per page, more than copying into it. The pool keeps at most `max` buffers, and lets
 * them go once it has not been used for `idleMs`, so an idle node does not hold them.
 */
export class BufferPool {
  private readonly free: Buffer[] = [];
  private release: NodeJS.Timeout | undefined;

  constructor(readonly bytes: number, private readonly allocate: (bytes: number) => Buffer, private readonly max: number, private readonly idleMs = 30_000) {}

  take(): Buffer {
    this.touch();
    return this.free.pop() ?? this.allocate(this.bytes);
  }

  /** Returns a buffer taken from this pool; nothing may use it afterwards. */
  give(buffer: Buffer): void {
    this.touch();
    const whole = buffer.byteOffset === 0 && buffer.length === this.bytes && buffer.buffer.byteLength === this.bytes;
    if (whole && this.free.length < this.max && !this.free.some((kept) => kept.buffer === buffer.buffer)) this.free.push(buffer);
  }

  private touch(): void {
    clearTimeout(this.release);
    this.release = setTimeout(() => (this.free.length = 0), this.idleMs);
    this.release.unref();
  }
}
