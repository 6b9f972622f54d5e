/**
 * scrypt on a few worker threads of its own. node's asynchronous scrypt runs on libuv's thread
 * pool (4 threads), the same pool that runs every fsync and file read: a burst of logins would
 * queue the storage's I/O behind tens of milliseconds of hashing each. Here hashing has its own
 * threads, one job each at a time, so storage I/O never waits for it.
 *
 * The threads run at a lower CPU priority than the event loop (Linux: per-thread nice), so on a
 * machine whose cores are all busy, serving requests comes before checking new credentials.
 * Threads start on first use, hold the process open only while they have work, and are ended by
 * `close`.
 */
import { Worker } from 'node:worker_threads';
import type { ScryptOptions } from 'node:crypto';
import { Errors } from '../../common/errors.js';

export interface ScryptJob {
  password: string;
  salt: Buffer;
  keyBytes: number;
  options: ScryptOptions;
}

/** Niceness of the hashing threads: the lowest priority, so hashing gets the CPU serving leaves over. */
const WORKER_NICENESS = 19;

// Plain JavaScript, evaluated as the worker's script: no file to find next to a built or a
// TypeScript module, and no TypeScript loader to start in each thread.
const WORKER_SCRIPT = `
const { parentPort } = require('node:worker_threads');
const { scryptSync } = require('node:crypto');
try {
  const threadId = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  require('node:os').setPriority(threadId, ${WORKER_NICENESS});
} catch {
  // Not Linux, or not allowed: the thread keeps the process's priority.
}
parentPort.on('message', ({ password, salt, keyBytes, options }) => {
  try {
    parentPort.postMessage({ key: scryptSync(password, salt, keyBytes, options) });
  } catch (error) {
    parentPort.postMessage({ error: { message: String(error && error.message), code: error && error.code } });
  }
});
`;

interface Pending {
  job: ScryptJob;
  resolve: (key: Buffer) => void;
  reject: (error: Error) => void;
}

interface Reply {
  key?: Uint8Array;
  error?: { message: string; code?: string };
}

/** One thread and the job it is working on. */
interface Slot {
  worker: Worker;
  current: Pending | undefined;
}

export class ScryptWorkers {
  private readonly slots = new Set<Slot>();
  private readonly idle: Slot[] = [];
  private readonly waiting: Pending[] = [];
  private closed = false;

  constructor(readonly threadsMax: number) {
    if (!Number.isInteger(threadsMax) || threadsMax < 1) throw new TypeError(`threadsMax must be a positive integer, not ${threadsMax}`);
  }

  /** The derived key; refused with SVCDB_ERR_NODE_SHUTTING_DOWN once `close` was called. */
  run(job: ScryptJob): Promise<Buffer> {
    if (this.closed) return Promise.reject(Errors.nodeShuttingDown.create());
    return new Promise((resolve, reject) => {
      const pending = { job, resolve, reject };
      const slot = this.idle.pop() ?? (this.slots.size < this.threadsMax ? this.spawn() : undefined);
      if (slot === undefined) this.waiting.push(pending);
      else this.assign(slot, pending);
    });
  }

  /** Ends every thread; jobs not finished are refused. */
  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.waiting.splice(0)) pending.reject(Errors.nodeShuttingDown.create());
    this.idle.length = 0;
    await Promise.all([...this.slots].map((slot) => slot.worker.terminate()));
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_SCRIPT, { eval: true, execArgv: [], name: 'svcdb-scrypt' });
    const slot: Slot = { worker, current: undefined };
    this.slots.add(slot);
    worker.on('message', (reply: Reply) => this.finished(slot, reply));
    worker.on('error', (error) => this.lost(slot, error));
    worker.on('exit', (code) => this.lost(slot, new Error(`a scrypt thread exited with code ${code}`)));
    return slot;
  }

  private assign(slot: Slot, pending: Pending): void {
    slot.current = pending;
    slot.worker.ref();
    slot.worker.postMessage(pending.job);
  }

  private finished(slot: Slot, reply: Reply): void {
    const pending = slot.current;
    slot.current = undefined;
    if (pending !== undefined) {
      if (reply.key !== undefined) pending.resolve(Buffer.from(reply.key.buffer, reply.key.byteOffset, reply.key.byteLength));
      else pending.reject(Object.assign(new Error(reply.error?.message ?? 'scrypt failed'), { code: reply.error?.code }));
    }
    const next = this.waiting.shift();
    if (next !== undefined) {
      this.assign(slot, next);
      return;
    }
    // An idle thread must not keep a process alive that has nothing else to do.
    slot.worker.unref();
    if (!this.closed) this.idle.push(slot);
  }

  /** A thread that died takes its job with it; the next job starts a new thread. */
  private lost(slot: Slot, error: Error): void {
    if (!this.slots.delete(slot)) return;
    const index = this.idle.indexOf(slot);
    if (index >= 0) this.idle.splice(index, 1);
    slot.current?.reject(this.closed ? Errors.nodeShuttingDown.create() : error);
    slot.current = undefined;
    const next = this.waiting.shift();
    if (next !== undefined && !this.closed) this.assign(this.spawn(), next);
  }
}
