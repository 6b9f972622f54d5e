/**
 * The projection source editor: a textarea over a highlighted copy of its text. The textarea is
 * transparent and on top, so typing, selection and undo are the browser's own; the copy below
 * follows every change and scroll. Loaded on its own when a projection page opens.
 */
import { useRef } from 'preact/hooks';
import { tokenize } from '../lib/highlight.js';

export interface EditorProps {
  value: string;
  onChange: (value: string) => void;
  name?: string;
  readOnly?: boolean;
}

export function Editor({ value, onChange, name, readOnly }: EditorProps) {
  const highlight = useRef<HTMLPreElement>(null);
  const follow = (event: Event) => {
    const area = event.currentTarget as HTMLTextAreaElement;
    if (highlight.current) {
      highlight.current.scrollTop = area.scrollTop;
      highlight.current.scrollLeft = area.scrollLeft;
    }
  };
  return (
    <div class="editor">
      <pre class="highlight" ref={highlight} aria-hidden="true">
        {tokenize(value).map((token, index) => <span key={index} class={`token-${token.kind}`}>{token.text}</span>)}
        {'\n'}
      </pre>
      <textarea name={name} spellcheck={false} readOnly={readOnly} value={value} onScroll={follow}
        onInput={(event) => { onChange(event.currentTarget.value); follow(event); }} />
    </div>
  );
}
