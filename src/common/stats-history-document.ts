/**
 * The document of `GET /stats/history`, declared once for the node that serves it and the
 * console that draws it.
 */
export interface StatsSample {
  /** Grows by one per sample, so a reader asks only for what it has not seen (`?after=`). */
  sequence: number;
  time: string;
  appendsPerSecond: number;
  /** Records read through the read index, per second. */
  readsPerSecond: number;
  /** HTTP requests answered per second, not counting the monitoring routes. */
  requestsPerSecond: number;
  monitoringRequestsPerSecond: number;
  /** The lengths of all queues together, and of each by name. */
  queueLength: number;
  queueLengths: Record<string, number>;
  flushMs: number;
  cpuPercent: number;
  memoryBytes: number;
  connections: number;
  receivedBytesPerSecond: number;
  sentBytesPerSecond: number;
  diskUsedPercent: number;
  diskFreeBytes: number;
}

export interface StatsHistoryDocument {
  periodMs: number;
  samplesMax: number;
  samples: StatsSample[];
}
