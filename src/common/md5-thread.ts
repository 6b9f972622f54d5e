/**
 * MD5 off the main thread. A chunk's footer holds the MD5 of the whole file (DESIGN.md §3), and
 * hashing hundreds of MiB at OpenSSL's speed costs more than reading or writing them: done on a
 * worker thread, it overlaps the main thread's reading, comparing and writing on another core.
 * One worker serves the process; it keeps the process alive only while it has work. It also
 * touches the pages of new shared memory ahead of their use (see touchPages).
 */
import { Worker } from 'node:worker_threads';

/** Bytes the worker reads from a file at once. */
const BLOCK_BYTES = 4 * 1024 * 1024;
/** Pages touched between two turns of the worker's event loop, so that hashing requests get through. */
const TOUCH_SLICE_PAGES = 256;

// CommonJS evaluated in the worker: no file to resolve, the same from src/ and dist/.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { open } = require('node:fs/promises');
const { closeSync, openSync, readSync } = require('node:fs');
const BLOCK = ${BLOCK_BYTES};
const PAGE = 4096;
const TOUCH_SLICE = ${TOUCH_SLICE_PAGES};
async function readBlock(handle, block, length, position, path) {
  const { bytesRead } = await handle.read(block, 0, length, position);
  if (bytesRead !== length) throw new Error(path + ' ended at byte ' + (position + bytesRead));
  return block;
}
async function hashFile(path, end) {
  const handle = await open(path, 'r');
  try {
    const hash = createHash('md5');
    const blocks = [Buffer.allocUnsafe(BLOCK), Buffer.allocUnsafe(BLOCK)];
    const lengthAt = (position) => Math.min(BLOCK, end - position);
    let next = end > 0 ? readBlock(handle, blocks[0], lengthAt(0), 0, path) : undefined;
    for (let position = 0, index = 0; next; position += BLOCK, index ^= 1) {
      const block = await next;
      const following = position + BLOCK;
      next = following < end ? readBlock(handle, blocks[index ^ 1], lengthAt(following), following, path) : undefined;
      next?.catch(() => undefined);
      hash.update(block.subarray(0, lengthAt(position)));
    }
    return hash.digest();
  } finally {
    await handle.close();
  }
}
const streams = new Map();
let scratch = Buffer.alloc(0);
/** Whether the file holds \`bytes\` at \`position\`: read back after the write, on this thread. */
function fileHolds(fd, bytes, position) {
  if (scratch.length < bytes.length) scratch = Buffer.allocUnsafe(Math.max(bytes.length, BLOCK));
  let done = 0;
  while (done < bytes.length) {
    const read = readSync(fd, scratch, done, bytes.length - done, position + done);
    if (read === 0) return false;
    done += read;
  }
  return scratch.subarray(0, bytes.length).equals(bytes);
}
function onStream(message) {
  const { id, op } = message;
  if (op === 'begin') {
    streams.set(id, { hash: createHash('md5'), fd: message.path === undefined ? undefined : openSync(message.path, 'r') });
    return;
  }
  const stream = streams.get(id);
  if (stream === undefined) throw new Error('the hashing thread was restarted and lost this hash');
  if (op === 'update') {
    stream.hash.update(message.bytes);
    if (message.seq !== undefined) parentPort.postMessage({ id, seq: message.seq, holds: true });
  } else if (op === 'check') {
    parentPort.postMessage({ id, seq: message.seq, holds: fileHolds(stream.fd, message.bytes, message.position) });
  } else if (op === 'peek') {
    if (zeros.length < message.zeros) zeros = Buffer.alloc(message.zeros);
    const digest = stream.hash.copy().update(zeros.subarray(0, message.zeros)).update(message.tail).digest();
    parentPort.postMessage({ id, digest }, [digest.buffer]);
  } else if (op === 'end') {
    streams.delete(id);
    if (stream.fd !== undefined) closeSync(stream.fd);
    if (message.discard) return;
    const digest = stream.hash.digest();
    parentPort.postMessage({ id, digest }, [digest.buffer]);
  }
}
/** Zeros for the padding of digests, grown to the largest asked for (a chunk's padding is under 4 KiB). */
let zeros = Buffer.alloc(0);
/**
 * Writes every page of the view without changing a byte (an atomic add of 0), a slice at a time:
 * the main thread may be writing the same memory, and an atomic read-modify-write of 0 cannot
 * undo its stores.
 */
function touch(id, bytes) {
  const words = new Int32Array(bytes.buffer);
  const end = bytes.byteOffset + bytes.byteLength;
  let at = Math.ceil(bytes.byteOffset / 4) * 4;
  const slice = () => {
    for (let pages = 0; pages < TOUCH_SLICE && at < end; pages++, at += PAGE) Atomics.add(words, at >> 2, 0);
    if (at < end) setImmediate(slice);
    else parentPort.postMessage({ id, done: true });
  };
  slice();
}
parentPort.on('message', (message) => {
  const { id, op } = message;
  if (op === 'begin' || op === 'update' || op === 'check' || op === 'peek' || op === 'end') {
    try {
      onStream(message);
    } catch (error) {
      parentPort.postMessage({ id, error: String(error && error.message || error) });
    }
  } else if (op === 'once') {
    const digest = createHash('md5').update(message.bytes).digest();
    parentPort.postMessage({ id, digest }, [digest.buffer]);
  } else if (op === 'touch') {
    touch(id, message.bytes);
  } else if (op === 'file') {
    hashFile(message.path, message.end).then(
      (digest) => parentPort.postMessage({ id, digest }),
      (error) => parentPort.postMessage({ id, error: String(error && error.message || error) }),
    );
  }
});
`;

interface Reply {
  id: number;
  digest?: Uint8Array;
  error?: string;
  /** For a stream's update: its number, and whether the file held the bytes. */
  seq?: number;
  holds?: boolean;
  /** Pages touched. */
  done?: boolean;
}

interface Pending {
  onDigest(digest: Buffer): void;
  onError(error: Error): void;
  onChecked?(seq: number, holds: boolean): void;
  onDone?(): void;
}

/** The process's hashing worker, started on first use and restarted if it dies. */
class HashThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  /** Registrations and requests that keep the process alive (see hold). */
  private holding = 0;
  private nextId = 1;

  /** `holds`: the registration keeps the process alive until released. */
  register(pending: Pending, holds = true): number {
    const id = this.nextId++;
    this.pending.set(id, pending);
    this.started();
    if (holds) this.hold();
    return id;
  }

  release(id: number, held = true): void {
    if (this.pending.delete(id) && held) this.unhold();
  }

  /** The worker keeps the process alive while something awaits an answer from it. */
  hold(): void {
    if (this.holding++ === 0) this.worker?.ref();
  }

  unhold(): void {
    if (--this.holding === 0) this.worker?.unref();
  }

  post(message: object, transfer: ArrayBuffer[] = []): void {
    this.started().postMessage(message, transfer);
  }

  /** Ends the worker as if it had died; the next request starts another. */
  async stop(): Promise<void> {
    await this.worker?.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.on('message', (reply: Reply) => this.deliver(reply));
    const fail = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      const waiting = [...this.pending.values()];
      for (const pending of waiting) pending.onError(error);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the hashing thread exited (code ${code})`)));
    // After the listeners: listening for messages refs the worker's port again.
    if (this.holding === 0) worker.unref();
    this.worker = worker;
    return worker;
  }

  private deliver(reply: Reply): void {
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    if (reply.error !== undefined) pending.onError(new Error(reply.error));
    else if (reply.seq !== undefined) pending.onChecked?.(reply.seq, reply.holds === true);
    else if (reply.done === true) pending.onDone?.();
    else if (reply.digest) pending.onDigest(Buffer.from(reply.digest.buffer, reply.digest.byteOffset, reply.digest.byteLength));
  }
}

const thread = new HashThread();

/** Posts one request whose answer is a digest. */
function request(message: object): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const id = thread.register({
      onDigest: (digest) => {
        thread.release(id);
        resolve(digest);
      },
      onError: (error) => {
        thread.release(id);
        reject(error);
      },
    });
    thread.post({ id, ...message });
  });
}

/** The MD5 of the first `end` bytes of the file at `path`, read and hashed on the hashing thread. */
export function md5OfFile(path: string, end: number): Promise<Buffer> {
  return request({ op: 'file', path, end });
}

/**
 * The MD5 of `bytes`, a view of a SharedArrayBuffer, hashed on the hashing thread without a copy:
 * the caller must not change them until the digest arrives (reading them, writing them to a
 * file, is fine).
 */
export function md5OfShared(bytes: Uint8Array): Promise<Buffer> {
  if (!(bytes.buffer instanceof SharedArrayBuffer)) throw new TypeError('md5OfShared takes a view of a SharedArrayBuffer');
  return request({ op: 'once', bytes });
}

/**
 * The MD5 of a file being written, fed in order with views of SharedArrayBuffers, and a check,
 * once each view was written, that the file holds it (read back on the thread): the digest is
 * then of bytes the file is known to hold. A view must not change until both have resolved.
 */
export class Md5FileStream {
  private readonly id: number;
  private readonly waiting = new Map<number, { resolve(holds: boolean): void; reject(error: Error): void }>();
  private readonly digest: Promise<Buffer>;
  private seq = 0;

  constructor(path: string) {
    let resolveDigest!: (digest: Buffer) => void;
    let rejectDigest!: (error: Error) => void;
    this.digest = new Promise<Buffer>((resolve, reject) => {
      resolveDigest = resolve;
      rejectDigest = reject;
    });
    this.digest.catch(() => undefined);
    this.id = thread.register({
      onDigest: (digest) => {
        thread.release(this.id);
        resolveDigest(digest);
      },
      onError: (error) => {
        thread.release(this.id);
        for (const waiting of this.waiting.values()) waiting.reject(error);
        this.waiting.clear();
        rejectDigest(error);
      },
      onChecked: (seq, holds) => {
        this.waiting.get(seq)?.resolve(holds);
        this.waiting.delete(seq);
      },
    });
    thread.post({ id: this.id, op: 'begin', path });
  }

  /** Adds `bytes` to the hash, after everything fed before; resolves once they are hashed. */
  update(bytes: Uint8Array): Promise<void> {
    return this.send('update', bytes, 0).then(() => undefined);
  }

  /** Whether the file holds `bytes` at `position` (read back now: call it once they were written). */
  check(bytes: Uint8Array, position: number): Promise<boolean> {
    return this.send('check', bytes, position);
  }

  /** The digest of everything fed; the stream is done. */
  end(): Promise<Buffer> {
    thread.post({ id: this.id, op: 'end' });
    return this.digest;
  }

  private send(op: 'update' | 'check', bytes: Uint8Array, position: number): Promise<boolean> {
    if (!(bytes.buffer instanceof SharedArrayBuffer)) throw new TypeError('Md5FileStream takes views of a SharedArrayBuffer');
    const seq = this.seq++;
    const answered = new Promise<boolean>((resolve, reject) => this.waiting.set(seq, { resolve, reject }));
    thread.post({ id: this.id, op, seq, bytes, position });
    return answered;
  }
}

/**
 * Has the hashing thread write every page of `bytes`, a view of a SharedArrayBuffer, without
 * changing them; resolves when done. Fresh memory costs a page fault at its first write, and on
 * a virtual machine that can cost more than the write itself: touched here, ahead of its use,
 * the faults are taken on another core than the one that later fills the memory.
 */
export function touchPages(bytes: Uint8Array): Promise<void> {
  if (!(bytes.buffer instanceof SharedArrayBuffer)) throw new TypeError('touchPages takes a view of a SharedArrayBuffer');
  return new Promise<void>((resolve, reject) => {
    const settle = (error?: Error) => {
      thread.release(id, false);
      if (error) reject(error);
      else resolve();
    };
    // Nobody waits on it to exit: a process may end with memory not yet touched.
    const id = thread.register({ onDigest: () => undefined, onDone: () => settle(), onError: settle }, false);
    thread.post({ id, op: 'touch', bytes });
  });
}

/**
 * A running MD5 kept on the hashing thread: fed in order, and asked at any time for the digest
 * of what it was fed followed by some zeros and a tail, without ending it. A view of shared
 * memory is hashed without a copy and must not change until the next digest has resolved; other
 * bytes are copied. It does not keep the process alive, except while a digest is awaited.
 */
export class RunningMd5 {
  private readonly id: number;
  private readonly digests: Array<{ resolve(digest: Buffer): void; reject(error: Error): void }> = [];
  private failure: Error | undefined;

  constructor() {
    this.id = thread.register({
      onDigest: (digest) => this.settle(digest),
      onError: (error) => {
        this.failure = error;
        this.settle(error);
      },
    }, false);
    thread.post({ id: this.id, op: 'begin' });
  }

  update(bytes: Uint8Array): void {
    if (this.failure === undefined) thread.post({ id: this.id, op: 'update', bytes });
  }

  /** The digest of everything fed so far, then `zeros` zero bytes, then `tail`. */
  digestWith(zeros: number, tail: Uint8Array): Promise<Buffer> {
    if (this.failure) return Promise.reject(this.failure);
    thread.hold();
    const answered = new Promise<Buffer>((resolve, reject) => this.digests.push({ resolve, reject }));
    thread.post({ id: this.id, op: 'peek', zeros, tail });
    return answered;
  }

  /** Drops the hash on the thread; nothing more is fed. */
  end(): void {
    if (this.failure === undefined) thread.post({ id: this.id, op: 'end', discard: true });
    this.failure ??= new Error('the running hash was ended');
    thread.release(this.id, false);
  }

  /** Digests answer in the order they were asked; an error answers every one still waiting. */
  private settle(answer: Buffer | Error): void {
    const waiting = answer instanceof Error ? this.digests.splice(0) : this.digests.splice(0, 1);
    for (const digest of waiting) {
      thread.unhold();
      if (answer instanceof Error) digest.reject(answer);
      else digest.resolve(answer);
    }
  }
}

/** Ends the hashing thread as if it had died (fault injection): what it was doing fails, and the next request starts another. */
export function stopHashingThread(): Promise<void> {
  return thread.stop();
}
