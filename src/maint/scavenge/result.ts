/**
 * What `svcdb scavenge` commands report, and the coded error of a run that did not succeed (its
 * exit code tells cron what happened).
 */
import { Errors } from '../../common/errors.js';
import type { CompletedScavenge, RunningScavenge } from './scavenge-client.js';

export interface ScavengeStartResult {
  url: string;
  scavengeId: string;
  /** With --wait: how the run ended (result Success; any other result is an error). */
  completed?: CompletedScavenge;
}

export interface ScavengeStopResult {
  url: string;
  scavengeId: string;
  stopped: true;
}

export interface ScavengeStatusResult {
  url: string;
  running: boolean;
  scavenge?: RunningScavenge;
}

/** Success passes; Failed and Stopped become their coded errors. */
export function checkCompleted(completed: CompletedScavenge): CompletedScavenge {
  if (completed.result === 'Failed') throw Errors.scavengeFailed.create(completed.scavengeId, completed.error ?? '');
  if (completed.result === 'Stopped') throw Errors.scavengeStopped.create(completed.scavengeId);
  return completed;
}
