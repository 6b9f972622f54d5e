/**
 * Event data and metadata are the client's bytes, and JSON ones go back into replies as they
 * were stored: parsing and serializing again would turn `1.0` into `1`, round big integers, drop
 * escapes and duplicate keys, and fail on deep nesting (the serializer recurses). A `JsonText`
 * holds stored text that was checked to be JSON; `stringifyJson` writes a reply document with
 * each one spliced in verbatim.
 */
import { randomBytes } from 'node:crypto';
import { strictJsonText } from '../../../common/lenient-json.js';

/** Marks where a JsonText goes in the serializer's output; random, so no client text holds it. */
const MARK = `svcdb-json-text-${randomBytes(16).toString('hex')}:`;
const QUOTED_MARK = `"${MARK}`;

/** The texts of the document being serialized, in the order the serializer meets them. */
let splicing: JsonText[] | undefined;

export class JsonText {
  constructor(readonly text: string) {}

  /** In stringifyJson, a placeholder; in a plain JSON.stringify, the parsed value (which may round numbers). */
  toJSON(): unknown {
    if (splicing === undefined) return JSON.parse(this.text);
    return `${MARK}${splicing.push(this) - 1}`;
  }
}

/**
 * Stored text as JSON text when it is JSON (of any depth), else undefined. Text that only the
 * lenient reader accepts (`{a : "1"}`) becomes its strict equivalent, so replies stay JSON.
 */
export function jsonTextOf(text: string): JsonText | undefined {
  const strict = strictJsonText(text);
  return strict === undefined ? undefined : new JsonText(strict);
}

/** `JSON.stringify(value)`, with every JsonText in it written as its stored text. */
export function stringifyJson(value: unknown): string {
  splicing = [];
  let serialized: string;
  let texts: JsonText[];
  try {
    serialized = JSON.stringify(value);
  } finally {
    texts = splicing;
    splicing = undefined;
  }
  if (texts.length === 0) return serialized;
  const parts = serialized.split(QUOTED_MARK);
  if (parts.length !== texts.length + 1) throw new TypeError('a JSON text placeholder was lost or repeated in serialization');
  let spliced = parts[0];
  for (let index = 1; index < parts.length; index++) {
    const part = parts[index];
    const close = part.indexOf('"');
    if (part.slice(0, close) !== String(index - 1)) throw new TypeError('JSON text placeholders are out of order');
    spliced += texts[index - 1].text + part.slice(close + 1);
  }
  return spliced;
}
