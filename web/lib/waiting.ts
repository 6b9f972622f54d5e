/** Waits that end early, with an AbortError, when their signal is aborted. */
function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The wait was aborted.', 'AbortError');
}

export function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(timer); reject(abortError(signal)); }, { once: true });
  });
}

/** Never resolves: for what does not change by itself. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(abortError(signal)), { once: true }));
}

/** Resolves when the tab is visible (at once if it is). */
export function visible(signal: AbortSignal): Promise<void> {
  if (document.visibilityState === 'visible') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const shown = () => {
      if (document.visibilityState !== 'visible') return;
      document.removeEventListener('visibilitychange', shown);
      resolve();
    };
    document.addEventListener('visibilitychange', shown);
    signal.addEventListener('abort', () => { document.removeEventListener('visibilitychange', shown); reject(abortError(signal)); }, { once: true });
  });
}
