/**
 * JSON handled as text. The console checks that what a user typed is JSON, and shows what the
 * node holds, without ever turning it into JavaScript values and back: a number such as
 * 12345678901234567890123 or 9007199254740993 loses digits that way, and `1.0` becomes `1`.
 * Every function here takes its numbers and strings from the text, character for character.
 */
import { objectMembers as memberSpans } from '../../src/common/json-scan.js';

/** Whether `text` is one JSON value (what the node takes as JSON). */
export function isJson(text: string): boolean {
  return jsonError(text) === undefined;
}

/** Why `text` is not JSON, or undefined when it is. */
export function jsonError(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** One token of JSON text: a punctuation character, or a string, number or literal as written. */
function tokens(text: string): string[] {
  const found: string[] = [];
  const pattern = /\s+|"(?:[^"\\]|\\.)*"|[{}[\],:]|[^\s{}[\],:"]+/gy;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    if (!/^\s/.test(match[0])) found.push(match[0]);
  }
  return found;
}

/** `text` indented by two spaces a level when it is JSON, undefined when it is not. */
export function reindentJson(text: string): string | undefined {
  if (!isJson(text)) return undefined;
  let depth = 0;
  let out = '';
  const newline = () => `\n${'  '.repeat(depth)}`;
  const list = tokens(text);
  list.forEach((token, index) => {
    const next = list[index + 1];
    if (token === '{' || token === '[') {
      const empty = next === '}' || next === ']';
      depth += 1;
      out += empty ? token : token + newline();
    } else if (token === '}' || token === ']') {
      depth -= 1;
      const previous = list[index - 1];
      out += previous === '{' || previous === '[' ? token : newline() + token;
    } else if (token === ',') {
      out += `,${newline()}`;
    } else if (token === ':') {
      out += ': ';
    } else {
      out += token;
    }
  });
  return out;
}

/**
 * The members of a JSON object's text, each key decoded and each value as written, without its
 * white space (undefined when `text` is not a JSON object). A repeated key is kept once, with its
 * last value, as JSON.parse keeps it. The node's own scanner finds the members.
 */
export function objectMembers(text: string): Map<string, string> | undefined {
  if (!isJson(text)) return undefined;
  const spans = memberSpans(text);
  if (spans === undefined) return undefined;
  const members = new Map<string, string>();
  for (const { key, value } of spans) {
    members.delete(key);
    members.set(key, tokens(text.slice(value.start, value.end)).join(''));
  }
  return members;
}

/** An object's JSON text from members whose values are JSON text already. */
export function objectText(members: Iterable<[string, string]>): string {
  const parts = [...members].map(([key, value]) => `${JSON.stringify(key)}:${value}`);
  return `{${parts.join(',')}}`;
}
