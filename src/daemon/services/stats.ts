/**
 * The node's statistics, shaped as the reference's field table: `proc` (this process), `sys`
 * (the machine) and `svc` (the database: queues, writer, read index). Totals come from counters
 * kept where the work happens; rates and percentages cover the time since the previous
 * measurement (at least a second back, so two quick reads do not divide by nothing).
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { EngineStatistics } from '../../storage/engine-stats.js';
import type { QueueMeter, QueueSnapshot } from '../../storage/log/meters.js';
import type { AuthenticationStats } from '../security/authenticator.js';
import type { ScavengeFields } from '../scavenge/scavenge-stats.js';
import type { ReplicationFields } from '../replication/replication-stats.js';
import {
  ConnectionMeter, GcMonitor, diskIo, driveSpace, heapSizes, processStatus, systemCpuTimes,
  type DiskIo, type DriveSpace,
} from './stats-process.js';

export interface QueueStats {
  queueName: string;
  groupName: string;
  avgItemsPerSecond: number;
  avgProcessingTime: number;
  currentIdleTime: string;
  currentItemProcessingTime: string;
  idleTimePercent: number;
  length: number;
  lengthCurrentTryPeak: number;
  lengthLifetimePeak: number;
  totalItemsProcessed: number;
  inProgressMessage: string;
  lastProcessedMessage: string;
}

export interface Stats {
  proc: {
    startTime: string;
    id: number;
    /** Resident memory (RSS) in bytes. */
    mem: number;
    cpu: number;
    cpuScaled: number;
    threadsCount: number;
    contentionsRate: number;
    thrownExceptionsRate: number;
    gc: {
      allocationSpeed: number;
      gen0ItemsCount: number;
      gen1ItemsCount: number;
      gen2ItemsCount: number;
      gen0Size: number;
      gen1Size: number;
      gen2Size: number;
      largeHeapSize: number;
      timeInGc: number;
      totalBytesInHeaps: number;
    };
    diskIo: DiskIo;
    tcp: {
      connections: number;
      receivingSpeed: string;
      sendingSpeed: number;
      inSend: number;
      measureTime: number;
      pendingReceived: number;
      pendingSend: number;
      receivedBytesSinceLastRun: number;
      receivedBytesTotal: number;
      sentBytesSinceLastRun: number;
      sentBytesTotal: number;
    };
  };
  sys: {
    cpu: number;
    freeMem: number;
    totalMem: number;
    loadavg: { oneMinute: number; fiveMinutes: number; fifteenMinutes: number };
    drive: Record<string, DriveSpace>;
  };
  svc: {
    checksum: number;
    checksumNonFlushed: number;
    queue: Record<string, QueueStats>;
    writer: {
      lastFlushSize: number;
      lastFlushDelayMs: number;
      meanFlushSize: number;
      meanFlushDelayMs: number;
      maxFlushSize: number;
      maxFlushDelayMs: number;
      queuedFlushMessages: number;
      totalFlushes: number;
      totalFlushedBytes: number;
      /** Group commits refused because the disk was full or descriptors ran out. */
      refusedCommits: number;
    };
    readIndex: {
      cachedRecord: number;
      notCachedRecord: number;
      cachedStreamInfo: number;
      notCachedStreamInfo: number;
      cachedTransInfo: number;
      notCachedTransInfo: number;
      hashCollisions: number;
    };
    index: { memTableEntries: number; frozenMemTables: number; files: number; commitPosition: number };
    chaserCheckpoint: number;
    chunkCount: number;
    /**
     * What follows the log (long polls; later subscriptions and projections), by name: where it
     * is, how far behind, and its state; a consumer that failed says why.
     */
    consumers: Record<string, ConsumerFields>;
    /** Present when the node authenticates (always, in a running node). */
    authentication?: AuthenticationFields;
    /** Persistent subscription groups by `{stream}::{group}` (present when the node serves them). */
    subscriptions?: Record<string, SubscriptionGroupFields>;
    /** Present when the node scavenges (always, in a running node). */
    scavenge?: ScavengeFields;
    /** What the node sends to its replicas and, on a replica, its lag (always, in a running node). */
    replication?: ReplicationFields;
  };
}

/** One subscription group: messages out and parked, its acknowledgement rate, and how far behind its stream it is. */
export interface SubscriptionGroupFields {
  inFlight: number;
  parked: number;
  /** Messages acknowledged per second, since the previous measurement. */
  processedRate: number;
  totalItemsProcessed: number;
  /** Events of the stream not yet handled: its last event number minus the group's handled position. */
  lag: number;
  connections: number;
}

export interface ConsumerFields {
  state: string;
  position: number;
  behindBytes: number;
  pagesHandled: number;
  error?: string;
}

/** Verifications of credentials the cache did not know, and addresses slowed down for failing. */
export interface AuthenticationFields {
  verificationsRunning: number;
  verificationsRunningMax: number;
  verificationsWaiting: number;
  verificationsWaitingMax: number;
  verificationsWaitingPeak: number;
  verificationsRefused: number;
  failedLogins: number;
  failedLoginSources: number;
  throttledSources: number;
  throttledRequests: number;
}

export interface StatsSources {
  storage: () => EngineStatistics;
  /** HTTP requests in flight and answered. */
  requests: QueueMeter;
  connections: ConnectionMeter;
  /** Errors met while handling requests, since start. */
  requestErrors: () => number;
  /** Directories whose file systems are reported under sys.drive (db, index). */
  paths: readonly string[];
  authentication?: () => AuthenticationStats;
  subscriptions?: () => Record<string, SubscriptionGroupFields>;
  scavenge?: () => ScavengeFields;
  replication?: () => ReplicationFields;
}

/** The counters a rate is computed from, taken at one instant. */
interface Sample {
  atMs: number;
  processCpu: NodeJS.CpuUsage;
  systemCpu: { busyMs: number; totalMs: number };
  gcPauseMs: number;
  allocatedBytes: number;
  receivedBytes: number;
  sentBytes: number;
  requestErrors: number;
  queues: Map<string, QueueSnapshot>;
}

const BASELINE_MIN_AGE_MS = 1000;
const processStart = new Date(Date.now() - process.uptime() * 1000).toISOString();

export class StatsService {
  private readonly gc = new GcMonitor();
  private baseline: Sample;
  private readonly processors = os.availableParallelism();

  constructor(private readonly sources: StatsSources) {
    // The storage is not asked here: a node's storage may still be opening, or be a test's stand-in.
    this.baseline = this.sample(undefined);
  }

  /** Stops the GC monitor; the service answers no more after this. */
  stop(): void {
    this.gc.stop();
  }

  async collect(): Promise<Stats> {
    const storage = this.sources.storage();
    const now = this.sample(storage.writerQueue);
    const before = this.baseline;
    const seconds = Math.max((now.atMs - before.atMs) / 1000, 0.001);
    if (now.atMs - before.atMs >= BASELINE_MIN_AGE_MS) this.baseline = now;
    const drive = await driveSpace(this.sources.paths);
    const stats: Stats = {
      proc: this.processStats(now, before, seconds),
      sys: {
        cpu: percent(now.systemCpu.busyMs - before.systemCpu.busyMs, now.systemCpu.totalMs - before.systemCpu.totalMs),
        freeMem: os.freemem(),
        totalMem: os.totalmem(),
        loadavg: loadAverage(),
        drive,
      },
      svc: this.databaseStats(storage, now, before),
    };
    if (this.sources.authentication) stats.svc.authentication = authenticationFields(this.sources.authentication());
    if (this.sources.subscriptions) stats.svc.subscriptions = this.sources.subscriptions();
    if (this.sources.scavenge) stats.svc.scavenge = this.sources.scavenge();
    if (this.sources.replication) stats.svc.replication = this.sources.replication();
    return stats;
  }

  private sample(writerQueue: QueueSnapshot | undefined): Sample {
    const gc = this.gc.read();
    const connections = this.sources.connections.read();
    const requests = this.sources.requests.snapshot();
    return {
      atMs: performance.now(),
      processCpu: process.cpuUsage(),
      systemCpu: systemCpuTimes(),
      gcPauseMs: gc.pauseMs,
      allocatedBytes: gc.allocatedBytes,
      receivedBytes: connections.receivedBytesTotal,
      sentBytes: connections.sentBytesTotal,
      requestErrors: this.sources.requestErrors(),
      queues: new Map(writerQueue ? [[writerQueue.name, writerQueue], [requests.name, requests]] : [[requests.name, requests]]),
    };
  }

  private processStats(now: Sample, before: Sample, seconds: number): Stats['proc'] {
    const cpuMicros = now.processCpu.user + now.processCpu.system - before.processCpu.user - before.processCpu.system;
    const cpu = round(cpuMicros / 1000 / (seconds * 1000) * 100);
    const status = processStatus();
    const gc = this.gc.read();
    const heap = heapSizes();
    const connections = this.sources.connections.read();
    const receivedSince = now.receivedBytes - before.receivedBytes;
    const sentSince = now.sentBytes - before.sentBytes;
    return {
      startTime: processStart,
      id: process.pid,
      mem: status.residentBytes,
      cpu,
      cpuScaled: round(cpu / this.processors),
      threadsCount: status.threads,
      // JavaScript has no managed locks to contend for.
      contentionsRate: 0,
      thrownExceptionsRate: round((now.requestErrors - before.requestErrors) / seconds),
      gc: {
        allocationSpeed: round((now.allocatedBytes - before.allocatedBytes) / seconds),
        gen0ItemsCount: gc.minor,
        gen1ItemsCount: gc.incremental,
        gen2ItemsCount: gc.major,
        gen0Size: heap.young,
        gen1Size: heap.old,
        gen2Size: heap.code,
        largeHeapSize: heap.large,
        timeInGc: round(percent(now.gcPauseMs - before.gcPauseMs, seconds * 1000)),
        totalBytesInHeaps: heap.total,
      },
      diskIo: diskIo(),
      tcp: {
        connections: connections.connections,
        receivingSpeed: `${round(receivedSince / seconds)}B/s`,
        sendingSpeed: round(sentSince / seconds),
        // Node cannot see the kernel's unacknowledged bytes; what waits in the process is the best measure.
        inSend: connections.pendingSend,
        measureTime: round(seconds * 1000),
        pendingReceived: connections.pendingReceived,
        pendingSend: connections.pendingSend,
        receivedBytesSinceLastRun: receivedSince,
        receivedBytesTotal: connections.receivedBytesTotal,
        sentBytesSinceLastRun: sentSince,
        sentBytesTotal: connections.sentBytesTotal,
      },
    };
  }

  private databaseStats(storage: EngineStatistics, now: Sample, before: Sample): Stats['svc'] {
    const { flushes, reads } = storage;
    const queue: Record<string, QueueStats> = {};
    for (const [name, snapshot] of now.queues) queue[name] = queueStats(snapshot, before.queues.get(name));
    return {
      checksum: storage.writerCheckpoint,
      checksumNonFlushed: storage.writerPosition,
      queue,
      writer: {
        lastFlushSize: flushes.lastBytes,
        lastFlushDelayMs: round(flushes.lastMs),
        meanFlushSize: flushes.count === 0 ? 0 : round(flushes.bytesTotal / flushes.count),
        meanFlushDelayMs: flushes.count === 0 ? 0 : round(flushes.msTotal / flushes.count),
        maxFlushSize: flushes.maxBytes,
        maxFlushDelayMs: round(flushes.maxMs),
        queuedFlushMessages: storage.writerQueue.length,
        totalFlushes: flushes.count,
        totalFlushedBytes: flushes.bytesTotal,
        refusedCommits: flushes.refused,
      },
      readIndex: {
        cachedRecord: reads.recordsFromMemory,
        notCachedRecord: reads.recordsFromFile,
        cachedStreamInfo: reads.streamInfoCacheHits,
        notCachedStreamInfo: reads.streamInfoCacheMisses,
        // One append is one transaction here: there is no transaction cache to hit or miss.
        cachedTransInfo: 0,
        notCachedTransInfo: 0,
        hashCollisions: reads.hashCollisions,
      },
      index: storage.index,
      chaserCheckpoint: storage.chaserCheckpoint,
      chunkCount: storage.chunkCount,
      consumers: Object.fromEntries(storage.consumers.map(({ name, ...fields }) => [name, fields])),
    };
  }
}

function queueStats(now: QueueSnapshot, before: QueueSnapshot | undefined): QueueStats {
  const elapsedMs = before ? now.atMs - before.atMs : 0;
  const items = now.itemsProcessed - (before?.itemsProcessed ?? 0);
  const work = now.workDone - (before?.workDone ?? 0);
  const workMs = now.workMsTotal - (before?.workMsTotal ?? 0);
  const busyMs = now.busyMsTotal - (before?.busyMsTotal ?? 0);
  return {
    queueName: now.name,
    groupName: now.group,
    avgItemsPerSecond: elapsedMs > 0 ? Math.round(items / (elapsedMs / 1000)) : 0,
    avgProcessingTime: work > 0 ? round(workMs / work) : 0,
    currentIdleTime: timeSpan(now.currentIdleMs),
    currentItemProcessingTime: timeSpan(now.currentWorkMs),
    idleTimePercent: elapsedMs > 0 ? round(Math.max(0, 100 - percent(busyMs, elapsedMs))) : 100,
    length: now.length,
    lengthCurrentTryPeak: now.lengthCurrentTryPeak,
    lengthLifetimePeak: now.lengthLifetimePeak,
    totalItemsProcessed: now.itemsProcessed,
    inProgressMessage: now.inProgress || '<none>',
    lastProcessedMessage: now.lastProcessed || '<none>',
  };
}

function authenticationFields({ verifications, failedLogins, throttled }: AuthenticationStats): AuthenticationFields {
  return {
    verificationsRunning: verifications.running,
    verificationsRunningMax: verifications.runningMax,
    verificationsWaiting: verifications.waiting,
    verificationsWaitingMax: verifications.waitingMax,
    verificationsWaitingPeak: verifications.waitingPeak,
    verificationsRefused: verifications.refused,
    failedLogins: failedLogins.failures,
    failedLoginSources: failedLogins.sources,
    throttledSources: failedLogins.blockedSources,
    throttledRequests: throttled,
  };
}

function loadAverage(): Stats['sys']['loadavg'] {
  const [oneMinute, fiveMinutes, fifteenMinutes] = os.loadavg();
  return { oneMinute, fiveMinutes, fifteenMinutes };
}

function percent(part: number, whole: number): number {
  return whole <= 0 ? 0 : round((part / whole) * 100);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Elapsed time as `hh:mm:ss.fff`, the way the reference shows a time span. */
export function timeSpan(ms: number): string {
  const total = Math.max(0, Math.round(ms));
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  const seconds = Math.floor((total % 60_000) / 1000);
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(hours)}:${pad(minutes)}:${pad(seconds)}.${pad(total % 1000, 3)}`;
}
