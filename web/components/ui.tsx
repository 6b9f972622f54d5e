/**
 * Small pieces every page uses: loading a resource, showing an error, asking before anything
 * destructive. Every value from the node is rendered as text (JSX children become text nodes),
 * never as markup.
 */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../lib/api.js';

export interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  reload: () => void;
}

/** The result of `load`, run again whenever `keys` change or `reload` is called. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, keys: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    setState((previous) => ({ ...previous, loading: true }));
    load(controller.signal).then(
      (data) => { if (!controller.signal.aborted) setState({ data, loading: false }); },
      (error: Error) => { if (!controller.signal.aborted) setState({ error, loading: false }); },
    );
    return () => controller.abort();
  }, [...keys, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 401) return `Not allowed: ${error.message}`;
    return error.code ? `${error.message} (${error.code})` : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

export function ErrorBanner({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  return <p class="error" role="alert">{describeError(error)}</p>;
}

export function Notice({ text }: { text: string | undefined }) {
  return text ? <p class="notice" role="status">{text}</p> : null;
}

/**
 * A button for a destructive action: the first click asks the question (which names what is
 * affected), and only "Yes" runs the action.
 */
export function ConfirmButton({ label, question, confirmLabel, onConfirm, name }: {
  label: string; question: string; confirmLabel: string; onConfirm: () => Promise<void> | void; name?: string;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const yes = useRef<HTMLButtonElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const answered = useRef(false);
  // The question takes the focus; once it is answered or cancelled, the focus goes back to the button.
  useLayoutEffect(() => {
    if (asking) yes.current?.focus();
    else if (answered.current) trigger.current?.focus();
  }, [asking]);
  const close = () => { answered.current = true; setAsking(false); };
  if (!asking) return <button type="button" class="danger" name={name} ref={trigger} onClick={() => { setError(undefined); setAsking(true); }}>{label}</button>;
  const run = async () => {
    setBusy(true);
    try {
      await onConfirm();
      close();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="confirm" role="alertdialog" aria-label={question} onKeyDown={(event) => { if (event.key === 'Escape' && !busy) close(); }}>
      <p>{question}</p>
      <button type="button" class="danger" ref={yes} disabled={busy} onClick={() => void run()}>{confirmLabel}</button>
      <button type="button" disabled={busy} onClick={close}>Cancel</button>
      <ErrorBanner error={error} />
    </div>
  );
}

/** A button that runs an action, shows its error, and says when it is done. */
export function ActionButton({ label, action, done, name }: { label: string; action: () => Promise<unknown>; done?: string; name?: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [message, setMessage] = useState<string>();
  const run = async () => {
    setBusy(true);
    setError(undefined);
    setMessage(undefined);
    try {
      await action();
      setMessage(done);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="action">
      <button type="button" name={name} disabled={busy} onClick={() => void run()}>{label}</button>
      <ErrorBanner error={error} />
      <Notice text={message} />
    </span>
  );
}

export function Field({ label, children }: { label: string; children: ComponentChildren }) {
  return <label class="field"><span>{label}</span>{children}</label>;
}

export function Pre({ text, label }: { text: string; label?: string }) {
  return <pre class="body" aria-label={label}>{text}</pre>;
}
