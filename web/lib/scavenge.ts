/** Scavenge options as the start form holds them, and the history rows read from `$scavenges`. */
export interface ScavengeOptions {
  threads: string;
  threshold: string;
  throttlePercent: string;
  syncOnly: boolean;
}

export const DEFAULT_SCAVENGE_OPTIONS: ScavengeOptions = Object.freeze({ threads: '1', threshold: '', throttlePercent: '', syncOnly: false });

/** The start request's query, or what to fix. */
export function scavengeQuery(options: ScavengeOptions): { ok: true; query: string } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  const whole = (text: string) => /^[0-9]+$/.test(text.trim());
  const params = new URLSearchParams();
  if (!whole(options.threads) || Number(options.threads) < 1 || Number(options.threads) > 4) errors.push('threads must be 1 to 4');
  else params.set('threads', options.threads.trim());
  if (options.threshold.trim() !== '') {
    if (!/^-?[0-9]+$/.test(options.threshold.trim())) errors.push('threshold must be a whole number');
    else params.set('threshold', options.threshold.trim());
  }
  if (options.throttlePercent.trim() !== '') {
    const percent = Number(options.throttlePercent);
    if (!whole(options.throttlePercent) || percent < 1 || percent > 100) errors.push('throttle percent must be between 1 and 100');
    else if (percent !== 100 && Number(options.threads) > 1) errors.push('throttle percent must be 100 for a multi-threaded scavenge');
    else params.set('throttlePercent', options.throttlePercent.trim());
  }
  if (options.syncOnly) params.set('syncOnly', 'true');
  return errors.length > 0 ? { ok: false, errors } : { ok: true, query: params.toString() };
}

export interface ScavengeRecord {
  scavengeId: string;
  type: string;
  time: string;
  result?: string;
  spaceSaved?: number;
  timeTaken?: string;
  error?: string;
}

/** One history row from an entry of `$scavenges` (links resolved to the scavenge's own events). */
export function scavengeRecord(entry: { summary: string; eventType?: string; updated: string; data?: string | null }): ScavengeRecord | undefined {
  // A link left unresolved has data null at embed=body.
  if (entry.data === undefined || entry.data === null) return undefined;
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(entry.data) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof data.scavengeId !== 'string') return undefined;
  return {
    scavengeId: data.scavengeId,
    type: entry.eventType ?? entry.summary,
    time: entry.updated,
    result: typeof data.result === 'string' ? data.result : undefined,
    spaceSaved: typeof data.spaceSaved === 'number' ? data.spaceSaved : undefined,
    timeTaken: typeof data.timeTaken === 'string' ? data.timeTaken : undefined,
    error: typeof data.error === 'string' && data.error !== '' ? data.error : undefined,
  };
}
