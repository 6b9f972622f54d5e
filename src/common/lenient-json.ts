/**
 * JSON as the reference's reader accepts it. Clients written against the reference post
 * `application/json` bodies such as `{a : "1"}` (unquoted names) or `{'a':'1'}` (single quotes),
 * and the reference reads them as JSON. JSON5 (the `json5` package) accepts that superset
 * (also comments and trailing commas) and refuses text that is not JSON-like at all (`0@x`).
 * Strict JSON is tried first: it is what nearly every client sends, and V8's parser is far
 * faster than JSON5's, which only runs when the strict parse fails.
 */
import JSON5 from 'json5';

/** The value of `text` read leniently, or undefined when even the lenient reader refuses it. */
function lenientValue(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON5.parse<unknown>(text) };
  } catch {
    return undefined;
  }
}

/** Whether `text` is strict JSON (any depth: V8's parser does not recurse). */
function isStrictJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Whether `text` is one JSON value as the lenient reader reads it. */
export function isLenientJson(text: string): boolean {
  if (text === '') return false;
  return isStrictJson(text) || lenientValue(text) !== undefined;
}

/**
 * `text` as strict JSON: the text itself when it is strict JSON, its lenient reading serialized
 * again when only the lenient reader accepts it, undefined otherwise (or when the value nests
 * too deeply for the serializer, which recurses).
 */
export function strictJsonText(text: string): string | undefined {
  if (text === '') return undefined;
  if (isStrictJson(text)) return text;
  const lenient = lenientValue(text);
  if (lenient === undefined) return undefined;
  try {
    return JSON.stringify(lenient.value);
  } catch {
    return undefined;
  }
}

/**
 * The value of `text` read strictly, then leniently, and whether the strict reader read it (then
 * the text can be scanned for the source of its values); throws the strict parser's error when
 * neither reads it.
 */
export function readJson(text: string): { value: unknown; strict: boolean } {
  try {
    return { value: JSON.parse(text) as unknown, strict: true };
  } catch (error) {
    const lenient = lenientValue(text);
    if (lenient === undefined) throw error;
    return { value: lenient.value, strict: false };
  }
}
