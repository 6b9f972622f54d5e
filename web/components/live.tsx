/**
 * Pages that update by themselves: a resource loaded, then loaded again whenever `wait` says
 * (a timer, or a long poll that answers when something changed), with the state shown to the
 * user. A hidden tab waits until it is shown again, so a console left in a background tab costs
 * the node nothing.
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { delay, untilAborted, visible } from '../lib/waiting.js';
import { describeError, type Loaded } from './ui.js';

export { untilAborted };

export type LiveState = 'connecting' | 'live' | 'retrying' | 'paused';

export interface Live<T> extends Loaded<T> {
  state: LiveState;
  updatedAt: Date | undefined;
}

/** How long to wait before loading again: resolves when it is time, rejects when aborted. */
export type Wait<T> = (data: T, signal: AbortSignal) => Promise<void>;

const RETRY_MS = 3000;

/** A wait of `ms` between loads. */
export function every<T>(ms: number): Wait<T> {
  return (_data, signal) => delay(ms, signal);
}

export function useLive<T>(load: (signal: AbortSignal) => Promise<T>, wait: Wait<T>, keys: unknown[]): Live<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; state: LiveState; updatedAt?: Date }>({ state: 'connecting' });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    const run = async () => {
      while (!signal.aborted) {
        if (document.visibilityState !== 'visible') setState((previous) => ({ ...previous, state: 'paused' }));
        await visible(signal);
        let data: T;
        try {
          data = await load(signal);
        } catch (error) {
          if (signal.aborted) return;
          setState((previous) => ({ ...previous, error: error as Error, state: 'retrying' }));
          await delay(RETRY_MS, signal);
          continue;
        }
        if (signal.aborted) return;
        setState({ data, state: 'live', updatedAt: new Date() });
        try {
          await wait(data, signal);
        } catch (error) {
          if (signal.aborted) return;
          // A long poll that failed: load again after a pause, as after a failed load.
          setState((previous) => ({ ...previous, error: error as Error, state: 'retrying' }));
          await delay(RETRY_MS, signal);
        }
      }
    };
    run().catch(() => undefined);
    return () => controller.abort();
  }, [...keys, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { data: state.data, error: state.error, loading: state.data === undefined && state.error === undefined, reload, state: state.state, updatedAt: state.updatedAt };
}

const LABELS: Record<LiveState, string> = { connecting: 'Connecting', live: 'Live', retrying: 'Reconnecting', paused: 'Paused' };

/** The page's live state: a dot and a word, the time of the last update, and why it is not live. */
export function LiveIndicator({ live }: { live: { state: LiveState; updatedAt?: Date; error?: unknown } }) {
  const title = live.state === 'retrying' && live.error !== undefined ? describeError(live.error) : undefined;
  return (
    <p class={`live live-${live.state}`} role="status" data-name="live-state" data-state={live.state} title={title}>
      <span class="dot" aria-hidden="true" />
      {LABELS[live.state]}
      {live.updatedAt ? <span class="muted">{` · updated ${live.updatedAt.toLocaleTimeString()}`}</span> : null}
      {title ? <span class="muted">{` · ${title}`}</span> : null}
    </p>
  );
}
