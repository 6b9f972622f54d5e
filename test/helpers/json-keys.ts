/**
 * Duplicate keys in the raw text of a JSON document. JSON.parse keeps the last of two equal keys
 * without a word, so a log line that carries `component` twice (nested pino children) or `reqId`
 * twice looks fine once parsed; this scans the text instead.
 */

/** Each key that appears twice in one object, as `path.key`; empty when there is none. */
export function duplicateKeys(text: string): string[] {
  const duplicates: string[] = [];
  // One entry per open object or array: the keys seen so far (arrays have none), and the path.
  const stack: Array<{ keys: Set<string> | undefined; path: string }> = [];
  let lastKey = '';
  let index = 0;
  while (index < text.length) {
    const character = text[index];
    if (character === '"') {
      const end = stringEnd(text, index);
      const value = JSON.parse(text.slice(index, end + 1)) as string;
      index = end + 1;
      while (/\s/.test(text[index] ?? '')) index++;
      const top = stack[stack.length - 1];
      if (text[index] === ':' && top?.keys) {
        if (top.keys.has(value)) duplicates.push(`${top.path}${value}`);
        top.keys.add(value);
        lastKey = value;
      }
      continue;
    }
    if (character === '{' || character === '[') {
      const parent = stack[stack.length - 1];
      const path = parent === undefined ? '' : `${parent.path}${parent.keys ? lastKey : '[]'}.`;
      stack.push({ keys: character === '{' ? new Set() : undefined, path });
    } else if (character === '}' || character === ']') {
      stack.pop();
    }
    index++;
  }
  return duplicates;
}

/** The index of the quote that closes the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  let index = start + 1;
  while (index < text.length && text[index] !== '"') index += text[index] === '\\' ? 2 : 1;
  if (index >= text.length) throw new Error(`unterminated string at ${start} in ${text}`);
  return index;
}
