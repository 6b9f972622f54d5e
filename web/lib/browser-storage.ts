/** The browser's storages, or none where the browser refuses them (a locked-down profile). */
import type { KeyValueStore } from './session.js';

export function localStore(): KeyValueStore | undefined {
  try {
    return localStorage;
  } catch {
    return undefined;
  }
}
