/** Projection modes, the create request's path, and the states a projection ends in. */
export type ProjectionMode = 'continuous' | 'onetime' | 'transient';

export interface ProjectionSummary {
  name: string;
  mode?: string;
  status?: string;
  stateReason?: string;
  progress?: number;
  position?: string;
  eventsProcessedAfterRestart?: number;
}

export interface NewProjection {
  name: string;
  mode: ProjectionMode;
  emit: boolean;
  enabled: boolean;
  trackEmittedStreams: boolean;
}

export function createPath(projection: NewProjection): string {
  const params = new URLSearchParams({ type: 'JS', enabled: String(projection.enabled), emit: String(projection.emit) });
  if (projection.name !== '') params.set('name', projection.name);
  if (projection.emit) params.set('trackemittedstreams', String(projection.trackEmittedStreams));
  return `/projections/${projection.mode}?${params.toString()}`;
}

export function projectionPath(name: string, suffix = ''): string {
  return `/projection/${encodeURIComponent(name)}${suffix}`;
}

export type ProjectionHealth = 'running' | 'behind' | 'faulted' | 'stopped' | 'completed';

/** Below this share of the log processed, a running projection is shown as behind. */
export const BEHIND_PERCENT = 99;

/**
 * How a projection is doing, for the list's colour and words: a faulted one with its reason, a
 * running one that has processed less than BEHIND_PERCENT of the log as behind, with how far it is.
 */
export function projectionHealth(summary: ProjectionSummary): { health: ProjectionHealth; reason: string } {
  const status = summary.status ?? '';
  const reason = summary.stateReason ?? '';
  if (status.startsWith('Faulted')) return { health: 'faulted', reason: reason || 'faulted, no reason given' };
  if (status.startsWith('Completed')) return { health: 'completed', reason };
  if (status.startsWith('Running')) {
    const progress = summary.progress ?? 100;
    return progress < BEHIND_PERCENT ? { health: 'behind', reason: `behind: ${progress.toFixed(1)} % of the log processed` } : { health: 'running', reason };
  }
  return { health: 'stopped', reason };
}

/** Whether a projection has stopped for good: the one-time query page stops waiting then. */
export function isFinished(status: string | undefined): boolean {
  return status !== undefined && /^(Completed|Faulted|Aborted|Stopped)/.test(status);
}

export const COMMANDS = ['enable', 'disable', 'reset', 'abort'] as const;
export const EXAMPLE_QUERY = "fromAll()\n  .when({\n    $init: () => ({ count: 0 }),\n    $any: (state, event) => { state.count += 1; return state; },\n  });\n";
