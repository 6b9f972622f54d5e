/**
 * Where the values of a JSON text are, without turning them into JavaScript values: a client's
 * JSON is stored as sent, so a value is kept as its source text (parsing would round
 * 123123123123123123, drop `1.0`'s fraction and reorder nothing but lose escapes). The scanner
 * expects text that JSON.parse accepted; it is iterative, so nesting depth costs no stack.
 */

export interface Span {
  start: number;
  end: number;
}

export interface Member {
  key: string;
  /** Where the member's key literal starts. */
  keyStart: number;
  value: Span;
}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

function skipWhitespace(text: string, at: number): number {
  while (at < text.length && WHITESPACE.has(text.charCodeAt(at))) at++;
  return at;
}

/** The index after the string literal that starts at `at` (a `"`). */
function skipString(text: string, at: number): number {
  for (let index = at + 1; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x5c) index++;
    else if (code === 0x22) return index + 1;
  }
  return text.length;
}

/** The index after the value that starts at `at` (no leading whitespace). */
export function skipValue(text: string, at: number): number {
  let depth = 0;
  let index = at;
  do {
    const char = text[index];
    if (char === '"') {
      index = skipString(text, index);
    } else if (char === '{' || char === '[') {
      depth++;
      index++;
    } else if (char === '}' || char === ']') {
      depth--;
      index++;
    } else if (depth > 0) {
      index++;
    } else {
      // A number, true, false or null at the top: up to the next delimiter.
      while (index < text.length && !',}] \t\n\r'.includes(text[index])) index++;
    }
  } while (depth > 0 && index < text.length);
  return index;
}

/** The span of the whole text's one value, without surrounding whitespace. */
export function valueSpan(text: string): Span {
  const start = skipWhitespace(text, 0);
  return { start, end: skipValue(text, start) };
}

/** The elements of the array at `span`, or undefined when it is not an array. */
export function arrayElements(text: string, span: Span = valueSpan(text)): Span[] | undefined {
  if (text[span.start] !== '[') return undefined;
  const elements: Span[] = [];
  let at = skipWhitespace(text, span.start + 1);
  while (at < span.end && text[at] !== ']') {
    const end = skipValue(text, at);
    elements.push({ start: at, end });
    at = skipWhitespace(text, end);
    if (text[at] === ',') at = skipWhitespace(text, at + 1);
  }
  return elements;
}

/** The members of the object at `span`, in order (a repeated key appears each time), or undefined. */
export function objectMembers(text: string, span: Span = valueSpan(text)): Member[] | undefined {
  if (text[span.start] !== '{') return undefined;
  const members: Member[] = [];
  let at = skipWhitespace(text, span.start + 1);
  while (at < span.end && text[at] === '"') {
    const keyEnd = skipString(text, at);
    const literal = text.slice(at, keyEnd);
    const key = literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
    const valueStart = skipWhitespace(text, skipWhitespace(text, keyEnd) + 1);
    const valueEnd = skipValue(text, valueStart);
    members.push({ key, keyStart: at, value: { start: valueStart, end: valueEnd } });
    at = skipWhitespace(text, valueEnd);
    if (text[at] === ',') at = skipWhitespace(text, at + 1);
  }
  return members;
}

/** The last member named `key` (JSON.parse keeps the last of repeated keys too). */
export function lastMember(members: readonly Member[], key: string): Member | undefined {
  for (let index = members.length - 1; index >= 0; index--) if (members[index].key === key) return members[index];
  return undefined;
}

/** Whether `text` is one JSON value. */
export function isJsonText(text: string): boolean {
  if (text === '') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The object text `objectText` with every member named `key` removed and `key` set to the JSON
 * text `valueText` at the end; the other members are kept as written. A text that is not an
 * object becomes `{"key":value}`.
 */
export function withMember(objectText: string, key: string, valueText: string): string {
  const member = `${JSON.stringify(key)}:${valueText}`;
  const members = isJsonText(objectText) ? objectMembers(objectText) : undefined;
  if (members === undefined) return `{${member}}`;
  const kept = members.filter((each) => each.key !== key).map((each) => objectText.slice(each.keyStart, each.value.end));
  return `{${[...kept, member].join(',')}}`;
}
