/**
 * Streams the user opened lately, newest first, remembered by the browser across visits. Only
 * the names are kept: no event, no credential.
 */
import type { KeyValueStore } from './session.js';

const KEY = 'svcdb.console.recentStreams';
export const RECENT_STREAMS_MAX = 10;

export function recentStreams(store: KeyValueStore | undefined): string[] {
  const text = store?.getItem(KEY);
  if (!text) return [];
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((name): name is string => typeof name === 'string').slice(0, RECENT_STREAMS_MAX) : [];
  } catch {
    return [];
  }
}

/** Puts `name` first, once, and keeps the newest RECENT_STREAMS_MAX names. */
export function rememberStream(store: KeyValueStore | undefined, name: string): string[] {
  const names = [name, ...recentStreams(store).filter((other) => other !== name)].slice(0, RECENT_STREAMS_MAX);
  store?.setItem(KEY, JSON.stringify(names));
  return names;
}

export function forgetStreams(store: KeyValueStore | undefined): void {
  store?.removeItem(KEY);
}
