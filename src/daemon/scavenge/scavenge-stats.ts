/**
 * The scavenge's share of /stats (`svc.scavenge`) and so of /metrics: whether one runs, where it
 * is, and totals since the node started. Numbers become metrics; the id and phase are for people.
 */
import type { ScavengeService } from './scavenge-service.js';

export interface ScavengeFields {
  scavengeId: string;
  phase: string;
  running: number;
  chunksDone: number;
  chunksTotal: number;
  spaceSaved: number;
  scavengesStarted: number;
  scavengesSucceeded: number;
  scavengesFailed: number;
  scavengesStopped: number;
  lastSpaceSaved: number;
}

export function scavengeStats(service: ScavengeService): ScavengeFields {
  const current = service.current();
  const counts = service.counts();
  return {
    scavengeId: current?.scavengeId ?? '',
    phase: current?.phase ?? 'Idle',
    running: current ? 1 : 0,
    chunksDone: current?.chunksDone ?? 0,
    chunksTotal: current?.chunksTotal ?? 0,
    spaceSaved: current?.spaceSaved ?? 0,
    scavengesStarted: counts.started,
    scavengesSucceeded: counts.succeeded,
    scavengesFailed: counts.failed,
    scavengesStopped: counts.stopped,
    lastSpaceSaved: counts.lastSpaceSaved,
  };
}
