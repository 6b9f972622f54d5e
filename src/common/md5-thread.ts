/**
 * MD5 off the main thread. A chunk's footer holds the MD5 of the whole file (DESIGN.md §3), and
 * hashing hundreds of MiB at OpenSSL's speed costs more than reading or writing them: done on a
 * worker thread, it overlaps the main thread's reading, comparing and writing on another core.
 * One worker serves the process; it keeps the process alive only while it has work.
 */
import { Worker } from 'node:worker_threads';

/** Bytes sent to the worker at once: large enough that messaging costs nothing beside hashing. */
const BLOCK_BYTES = 4 * 1024 * 1024;
/** Bytes a stream may have in flight before `ready()` waits: bounds the memory queued. */
const IN_FLIGHT_BYTES = 4 * BLOCK_BYTES;

// CommonJS evaluated in the worker: no file to resolve, the same from src/ and dist/.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { open } = require('node:fs/promises');
const BLOCK = ${BLOCK_BYTES};
const streams = new Map();
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
parentPort.on('message', (message) => {
  const { id, op } = message;
  if (op === 'update') {
    let hash = streams.get(id);
    if (!hash) streams.set(id, hash = createHash('md5'));
    hash.update(message.bytes);
    // The block goes back to be filled again.
    parentPort.postMessage({ id, acked: message.bytes }, [message.bytes.buffer]);
  } else if (op === 'digest') {
    const hash = streams.get(id) ?? createHash('md5');
    streams.delete(id);
    const digest = hash.digest();
    parentPort.postMessage({ id, digest }, [digest.buffer]);
  } else if (op === 'once') {
    const digest = createHash('md5').update(message.bytes).digest();
    parentPort.postMessage({ id, digest }, [digest.buffer]);
  } else if (op === 'drop') {
    streams.delete(id);
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
  acked?: Uint8Array<ArrayBuffer>;
  digest?: Uint8Array;
  error?: string;
}

interface Pending {
  onAck(block: Uint8Array<ArrayBuffer>): void;
  onDigest(digest: Buffer): void;
  onError(error: Error): void;
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
    if (reply.acked !== undefined) pending.onAck(reply.acked);
    else if (reply.error !== undefined) pending.onError(new Error(reply.error));
    else if (reply.digest) pending.onDigest(Buffer.from(reply.digest.buffer, reply.digest.byteOffset, reply.digest.byteLength));
  }
}

const thread = new HashThread();

/**
 * An MD5 computed on the hashing thread from bytes given in order. `update` copies the bytes
 * (the caller may reuse its buffer at once); `ready` waits while too much is in flight.
 */
export class Md5Stream {
  private readonly id: number;
  private staging = new Uint8Array(BLOCK_BYTES);
  private staged = 0;
  /** Blocks hashed and sent back, to fill again rather than allocate. */
  private readonly spare: Array<Uint8Array<ArrayBuffer>> = [];
  private inFlight = 0;
  private failure: Error | undefined;
  private waiters: Array<() => void> = [];
  private result: { resolve(digest: Buffer): void; reject(error: Error): void } | undefined;
  private finished = false;

  constructor() {
    this.id = thread.register({
      onAck: (block) => {
        this.inFlight -= block.length;
        if (block.length === BLOCK_BYTES) this.spare.push(block);
        this.wake();
      },
      onDigest: (digest) => this.finish()?.resolve(digest),
      onError: (error) => {
        this.failure = error;
        this.wake();
        this.finish()?.reject(error);
      },
    });
  }

  update(bytes: Uint8Array): this {
    this.check();
    for (let from = 0; from < bytes.length;) {
      const taken = Math.min(bytes.length - from, BLOCK_BYTES - this.staged);
      this.staging.set(bytes.subarray(from, from + taken), this.staged);
      this.staged += taken;
      from += taken;
      if (this.staged === BLOCK_BYTES) this.send();
    }
    return this;
  }

  /** Resolves once the bytes in flight are few enough to add more. */
  async ready(): Promise<void> {
    while (this.inFlight > IN_FLIGHT_BYTES && !this.failure) await new Promise<void>((wake) => this.waiters.push(wake));
    this.check();
  }

  /** The MD5 of every byte given. The stream cannot be used after. */
  digest(): Promise<Buffer> {
    this.check();
    if (this.staged > 0) this.send();
    return new Promise<Buffer>((resolve, reject) => {
      this.result = { resolve, reject };
      thread.post({ id: this.id, op: 'digest' });
    });
  }

  /** Drops the stream without its digest (a copy that failed). */
  abort(): void {
    if (this.finished) return;
    this.finish();
    thread.post({ id: this.id, op: 'drop' });
  }

  private send(): void {
    const bytes = this.staged === BLOCK_BYTES ? this.staging : this.staging.slice(0, this.staged);
    this.inFlight += bytes.length;
    thread.post({ id: this.id, op: 'update', bytes }, [bytes.buffer]);
    this.staging = this.spare.pop() ?? new Uint8Array(BLOCK_BYTES);
    this.staged = 0;
  }

  private check(): void {
    if (this.failure) throw this.failure;
    if (this.finished) throw new Error('the MD5 stream is finished');
  }

  private finish(): Md5Stream['result'] {
    const result = this.result;
    this.finished = true;
    this.result = undefined;
    thread.release(this.id);
    return result;
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/** Posts one request whose answer is a digest. */
function request(message: object): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const id = thread.register({
      onAck: () => undefined,
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
