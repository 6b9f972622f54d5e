/** What each series of the node's history is called on a chart, and how its values are written, with their unit. */
import { formatBytes } from '../../src/common/human-units.js';
import type { SeriesName } from './node-history.js';

/** A figure with a decimal only where it says something: 0, 0.5, 2, 25. */
const figure = (value: number) => (Number.isInteger(value) || value >= 10 ? value.toFixed(0) : value.toFixed(1));
export const count = (value: number) => figure(value);
const rate = (value: number) => `${figure(value)}/s`;
const milliseconds = (value: number) => `${figure(value)} ms`;
const percent = (value: number) => `${value.toFixed(0)} %`;
const bytesRate = (value: number) => `${formatBytes(value)}/s`;

export interface SeriesLabel {
  title: string;
  format: (value: number) => string;
}

export const SERIES_LABELS: Record<SeriesName, SeriesLabel> = {
  appendsPerSecond: { title: 'Appends', format: rate },
  readsPerSecond: { title: 'Reads', format: rate },
  requestsPerSecond: { title: 'HTTP requests', format: rate },
  monitoringRequestsPerSecond: { title: 'Statistics requests (consoles, monitors)', format: rate },
  queueLength: { title: 'Queue lengths (all queues)', format: count },
  flushMs: { title: 'Writer flush', format: milliseconds },
  cpuPercent: { title: 'Process CPU', format: percent },
  memoryBytes: { title: 'Resident memory', format: formatBytes },
  connections: { title: 'Connections', format: count },
  receivedBytesPerSecond: { title: 'Received', format: bytesRate },
  sentBytesPerSecond: { title: 'Sent', format: bytesRate },
  diskUsedPercent: { title: 'Disk used', format: percent },
  diskFreeBytes: { title: 'Disk free', format: formatBytes },
};
