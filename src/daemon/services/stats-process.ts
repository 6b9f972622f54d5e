/**
 * Measurements of the process and the machine for /stats: CPU, memory, threads, disk I/O, GC,
 * drive space and HTTP connections. Linux figures come from /proc; elsewhere the fields fall
 * back to what Node itself can tell (and 0 where it cannot), so /stats keeps its shape.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import type { Server, Socket } from 'node:net';
import os from 'node:os';
import v8 from 'node:v8';

function readProcFile(name: string): string | undefined {
  try {
    return readFileSync(`/proc/self/${name}`, 'utf8');
  } catch {
    return undefined;
  }
}

function field(text: string | undefined, name: string): number | undefined {
  const match = text === undefined ? null : new RegExp(`^${name}:\\s*(\\d+)`, 'm').exec(text);
  return match ? Number(match[1]) : undefined;
}

/**
 * Resident memory (the pages of the process held in RAM, what the reference reports as its
 * working set) and thread count of this process. Virtual size is not a measure of use: V8
 * reserves gigabytes of address space it never touches.
 */
export function processStatus(): { residentBytes: number; threads: number } {
  const status = readProcFile('status');
  return {
    residentBytes: process.memoryUsage.rss(),
    threads: field(status, 'Threads') ?? 1,
  };
}

export interface DiskIo {
  readBytes: number;
  writtenBytes: number;
  readOps: number;
  writeOps: number;
}

/** Bytes the process read from and wrote to storage devices, and its read and write calls. */
export function diskIo(): DiskIo {
  const io = readProcFile('io');
  if (io === undefined) {
    const usage = process.resourceUsage();
    return { readBytes: 0, writtenBytes: 0, readOps: usage.fsRead, writeOps: usage.fsWrite };
  }
  return {
    readBytes: field(io, 'read_bytes') ?? 0,
    writtenBytes: field(io, 'write_bytes') ?? 0,
    readOps: field(io, 'syscr') ?? 0,
    writeOps: field(io, 'syscw') ?? 0,
  };
}

/** Busy and total CPU time of all processors, summed. */
export function systemCpuTimes(): { busyMs: number; totalMs: number } {
  let busyMs = 0;
  let totalMs = 0;
  for (const { times } of os.cpus()) {
    const total = times.user + times.nice + times.sys + times.irq + times.idle;
    totalMs += total;
    busyMs += total - times.idle;
  }
  return { busyMs, totalMs };
}

export interface DriveSpace {
  availableBytes: number;
  totalBytes: number;
  usedBytes: number;
  /** Used space as a percentage of the total. */
  usage: number;
}

/**
 * Space on the file systems holding `paths`, keyed by mount point (several paths on one file
 * system give one entry).
 */
export async function driveSpace(paths: readonly string[]): Promise<Record<string, DriveSpace>> {
  const mounts = mountPoints();
  const drives: Record<string, DriveSpace> = {};
  for (const path of paths) {
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      continue;
    }
    const mount = mounts.filter((point) => real === point || real.startsWith(point === '/' ? '/' : `${point}/`))
      .sort((a, b) => b.length - a.length)[0] ?? real;
    if (drives[mount]) continue;
    const stats = await statfs(real);
    const totalBytes = stats.blocks * stats.bsize;
    const usedBytes = (stats.blocks - stats.bfree) * stats.bsize;
    drives[mount] = {
      availableBytes: stats.bavail * stats.bsize,
      totalBytes,
      usedBytes,
      usage: totalBytes === 0 ? 0 : Math.round((usedBytes / totalBytes) * 10_000) / 100,
    };
  }
  return drives;
}

function mountPoints(): string[] {
  const info = readProcFile('mountinfo');
  if (info === undefined) return [];
  // Field 5 of each line is the mount point, with spaces and the like escaped in octal.
  return info.split('\n').filter(Boolean).map((line) => line.split(' ')[4].replace(/\\(\d{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))));
}

export interface GcTotals {
  /** Collections by kind: young generation (scavenges), incremental marking steps, full mark-sweeps. */
  minor: number;
  incremental: number;
  major: number;
  /** Time spent in collections. */
  pauseMs: number;
  /** Bytes allocated on the JavaScript heap since the monitor started. */
  allocatedBytes: number;
}

const FOLD_INTERVAL_MS = 10_000;

/**
 * Counts garbage collections and allocation with V8's GC profiler. The profiler buffers one
 * entry per collection, so its data is folded into totals on every read and every 10 s.
 */
export class GcMonitor {
  private profiler: v8.GCProfiler | undefined;
  private readonly timer: NodeJS.Timeout;
  private lastUsedBytes = v8.getHeapStatistics().used_heap_size;
  private readonly totals: GcTotals = { minor: 0, incremental: 0, major: 0, pauseMs: 0, allocatedBytes: 0 };

  constructor() {
    this.profiler = new v8.GCProfiler();
    this.profiler.start();
    this.timer = setInterval(() => this.fold(), FOLD_INTERVAL_MS).unref();
  }

  read(): GcTotals {
    this.fold();
    return { ...this.totals };
  }

  stop(): void {
    clearInterval(this.timer);
    this.profiler?.stop();
    this.profiler = undefined;
  }

  /**
   * Allocated = growth of the used heap since the last fold + what each collection freed.
   */
  private fold(): void {
    if (!this.profiler) return;
    const data = this.profiler.stop() as unknown as { statistics: GcRecord[] };
    this.profiler.start();
    let freed = 0;
    for (const record of data.statistics) {
      if (record.gcType === 'Scavenge' || record.gcType.startsWith('Minor')) this.totals.minor++;
      else if (record.gcType === 'IncrementalMarking') this.totals.incremental++;
      else if (record.gcType === 'MarkSweepCompact') this.totals.major++;
      this.totals.pauseMs += record.cost / 1000;
      freed += Math.max(0, record.beforeGC.heapStatistics.usedHeapSize - record.afterGC.heapStatistics.usedHeapSize);
    }
    const used = v8.getHeapStatistics().used_heap_size;
    this.totals.allocatedBytes += Math.max(0, used - this.lastUsedBytes + freed);
    this.lastUsedBytes = used;
  }
}

interface GcRecord {
  gcType: string;
  /** Microseconds. */
  cost: number;
  beforeGC: { heapStatistics: { usedHeapSize: number } };
  afterGC: { heapStatistics: { usedHeapSize: number } };
}

/** Heap sizes in the reference's generations: young, old, code and the large object spaces. */
export function heapSizes(): { young: number; old: number; code: number; large: number; total: number } {
  const used = (name: string) => v8.getHeapSpaceStatistics().find((space) => space.space_name === name)?.space_used_size ?? 0;
  return {
    young: used('new_space'),
    old: used('old_space'),
    code: used('code_space'),
    large: used('large_object_space') + used('new_large_object_space') + used('code_large_object_space'),
    total: v8.getHeapStatistics().used_heap_size,
  };
}

export interface ConnectionTotals {
  connections: number;
  receivedBytesTotal: number;
  sentBytesTotal: number;
  /** Bytes received and not yet read by the server. */
  pendingReceived: number;
  /** Bytes the server wrote that still wait in the process to go to the kernel. */
  pendingSend: number;
}

/** Tracks the HTTP server's connections and the bytes they carried, open and closed. */
export class ConnectionMeter {
  private readonly open = new Set<Socket>();
  private closedReceived = 0;
  private closedSent = 0;

  attach(server: Server): void {
    server.on('connection', (socket: Socket) => {
      this.open.add(socket);
      socket.once('close', () => {
        this.closedReceived += socket.bytesRead;
        this.closedSent += socket.bytesWritten;
        this.open.delete(socket);
      });
    });
  }

  read(): ConnectionTotals {
    let received = this.closedReceived;
    let sent = this.closedSent;
    let pendingReceived = 0;
    let pendingSend = 0;
    for (const socket of this.open) {
      received += socket.bytesRead;
      sent += socket.bytesWritten;
      pendingReceived += socket.readableLength;
      pendingSend += socket.writableLength;
    }
    return { connections: this.open.size, receivedBytesTotal: received, sentBytesTotal: sent, pendingReceived, pendingSend };
  }
}
