/**
 * Every wait in a test has a deadline and, when it passes, fails naming what it waited for: a
 * bug that stops something from happening shows as that message, not as a hung run that tap
 * kills minutes later without saying why.
 */
import { setTimeout as delay } from 'node:timers/promises';

/** Long enough for a loaded machine running two test files at once; far below tap's timeout. */
export const WAIT_DEADLINE_MS = 60_000;

/** A wait that passed its deadline; `what` is what was awaited. */
export class WaitTimeoutError extends Error {
  constructor(readonly what: string, readonly timeoutMs: number, detail = '') {
    super(`gave up after ${timeoutMs} ms waiting for ${what}${detail ? `\n${detail}` : ''}`);
    this.name = 'WaitTimeoutError';
  }
}

/** `promise`, or a WaitTimeoutError naming `what` if it has not settled within `timeoutMs`. */
export async function withDeadline<T>(promise: Promise<T>, what: string, timeoutMs = WAIT_DEADLINE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new WaitTimeoutError(what, timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

export interface PollOptions {
  timeoutMs?: number;
  /** Pause between checks; 0 checks again on the next turn of the event loop. */
  intervalMs?: number;
}

/** Resolves once `check` holds; fails naming `what` after `timeoutMs`. */
export async function pollUntil(what: string, check: () => boolean, options: PollOptions = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? WAIT_DEADLINE_MS;
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new WaitTimeoutError(what, timeoutMs);
    if (options.intervalMs) await delay(options.intervalMs);
    else await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Resolves once the async `check` holds, checking one after another; fails naming `what` after `timeoutMs`. */
export async function pollUntilAsync(what: string, check: () => Promise<boolean>, options: PollOptions = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? WAIT_DEADLINE_MS;
  const deadline = Date.now() + timeoutMs;
  while (!(await withDeadline(check(), what, timeoutMs))) {
    if (Date.now() > deadline) throw new WaitTimeoutError(what, timeoutMs);
    if (options.intervalMs) await delay(options.intervalMs);
  }
}
