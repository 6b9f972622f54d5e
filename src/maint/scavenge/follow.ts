/**
 * Follows a scavenge to its end (`svcdb scavenge start --wait`): asks the node for its state at
 * an interval, hands each one to `onProgress`, and resolves with how it ended.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { isCompleted, type CompletedScavenge, type RunningScavenge, type ScavengeClient } from './scavenge-client.js';

export const FOLLOW_INTERVAL_MS = 500;

export async function followScavenge(
  client: ScavengeClient, scavengeId: string, onProgress: (state: RunningScavenge) => void, intervalMs = FOLLOW_INTERVAL_MS,
): Promise<CompletedScavenge> {
  for (;;) {
    const state = await client.state(scavengeId);
    if (isCompleted(state)) return state;
    onProgress(state);
    await delay(intervalMs);
  }
}
