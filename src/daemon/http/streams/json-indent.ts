/**
 * The pretty embed levels show JSON objects re-indented, as `JSON.stringify(value, null, 2)` lays
 * them out, but from the stored text itself: only whitespace between tokens changes, so numbers,
 * escapes and key order stay as the client sent them.
 */
import { jsonTextOf } from './json-text.js';

/** Deeper objects are shown as stored: each level indents every line below it by two more spaces. */
export const INDENT_DEPTH_MAX = 512;

const isWhitespace = (character: string | undefined) => character === ' ' || character === '\n' || character === '\r' || character === '\t';

/** The end of the string literal that starts at `start` (the index of its closing quote). */
function stringEnd(text: string, start: number): number {
  let index = start + 1;
  while (text[index] !== '"') index += text[index] === '\\' ? 2 : 1;
  return index;
}

/**
 * A JSON object re-indented (from its strict form, when only the lenient reader reads it);
 * undefined when the text is not one, or is nested deeper than INDENT_DEPTH_MAX.
 */
export function indentJsonObject(stored: string): string | undefined {
  const text = jsonTextOf(stored)?.text;
  if (text === undefined) return undefined;
  const start = text.search(/\S/);
  if (start < 0 || text[start] !== '{') return undefined;
  let indented = '';
  let depth = 0;
  for (let index = start; index < text.length; index++) {
    const character = text[index];
    if (character === '"') {
      const end = stringEnd(text, index);
      indented += text.slice(index, end + 1);
      index = end;
    } else if (character === '{' || character === '[') {
      let next = index + 1;
      while (isWhitespace(text[next])) next++;
      if (text[next] === '}' || text[next] === ']') {
        indented += character + text[next];
        index = next;
      } else {
        if (++depth > INDENT_DEPTH_MAX) return undefined;
        indented += `${character}\n${'  '.repeat(depth)}`;
      }
    } else if (character === '}' || character === ']') {
      indented += `\n${'  '.repeat(--depth)}${character}`;
    } else if (character === ',') {
      indented += `,\n${'  '.repeat(depth)}`;
    } else if (character === ':') {
      indented += ': ';
    } else if (!isWhitespace(character)) {
      indented += character;
    }
  }
  return indented;
}
