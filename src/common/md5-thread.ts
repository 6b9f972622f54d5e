/**
 * MD5 off the main thread. A chunk's footer holds the MD5 of the whole file (DESIGN.md §3), and
 * hashing hundreds of MiB at OpenSSL's speed costs more than reading or writing them: done on a
 * worker thread, it overlaps the main thread's reading, comparing and writing on another core.
 * One worker serves the process; it keeps the process alive only while it has work.
 */
import { Worker } from 'node:worker_threads';

/** Bytes the worker reads from a file at once. */
const BLOCK_BYTES = 4 * 1024 * 1024;

// CommonJS evaluated in the worker: no file to resolve, the same from src/ and dist/.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { open } = require('node:fs/promises');
const { closeSync, openSync, readSync } = require('node:fs');
const BLOCK = ${BLOCK_BYTES};
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
    streams.set(id, { hash: createHash('md5'), fd: openSync(message.path, 'r') });
    return;
  }
  const stream = streams.get(id);
  if (op === 'update') {
    stream.hash.update(message.bytes);
    parentPort.postMessage({ id, seq: message.seq, holds: true });
  } else if (op === 'check') {
    parentPort.postMessage({ id, seq: message.seq, holds: fileHolds(stream.fd, message.bytes, message.position) });
  } else if (op === 'end') {
    streams.delete(id);
    closeSync(stream.fd);
    const digest = stream.hash.digest();
    parentPort.postMessage({ id, digest }, [digest.buffer]);
  }
}
parentPort.on('message', (message) => {
  const { id, op } = message;
  if (op === 'begin' || op === 'update' || op === 'check' || op === 'end') {
    try {
      onStream(message);
    } catch (error) {
      parentPort.postMessage({ id, error: String(error && error.message || error) });
    }
  } else if (op === 'once') {
    const digest = createHash('md5').update(message.bytes).digest();
    parentPort.postMessage({ id, digest }, [digest.buffer]);
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
}

interface Pending {
  onDigest(digest: Buffer): void;
  onError(error: Error): void;
  onChecked?(seq: number, holds: boolean): void;
}

/** The process's hashing worker, started on first use and restarted if it dies. */
class HashThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  register(pending: Pending): number {
    const id = this.nextId++;
    this.pending.set(id, pending);
    this.started().ref();
    return id;
  }

  release(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker?.unref();
  }

  post(message: object, transfer: ArrayBuffer[] = []): void {
    this.started().postMessage(message, transfer);
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref();
    worker.on('message', (reply: Reply) => this.deliver(reply));
    const fail = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      const waiting = [...this.pending.values()];
      this.pending.clear();
      for (const pending of waiting) pending.onError(error);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the hashing thread exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private deliver(reply: Reply): void {
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    if (reply.error !== undefined) pending.onError(new Error(reply.error));
    else if (reply.seq !== undefined) pending.onChecked?.(reply.seq, reply.holds === true);
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
