/**
 * XML text: escaping for text and attribute values, and JSON values as XML elements (objects
 * become child elements, an array property repeated elements, as JSON-to-XML converters do).
 * Characters XML 1.0 cannot carry are dropped.
 */
import { arrayElements, objectMembers, type Span } from '../../../common/json-scan.js';
import { JsonText } from './json-text.js';

// Markup characters (values are written in double quotes), the control characters XML forbids,
// non-characters and lone surrogates.
// eslint-disable-next-line no-control-regex -- the control characters are what it finds
const SPECIAL = /[&<>"\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const SPECIAL_ALL = new RegExp(SPECIAL.source, 'g');
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

export function escapeXml(text: string): string {
  if (!SPECIAL.test(text)) return text;
  return text.replace(SPECIAL_ALL, (character) => ENTITIES[character] ?? '');
}

function isNameStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

function isNameCharacter(code: number): boolean {
  return isNameStart(code) || (code >= 48 && code <= 57) || code === 45 || code === 46;
}

/** A JSON key as an element name; other characters are written `_xHHHH_`, as XmlConvert does. */
export function elementName(key: string): string {
  if (key.length === 0) return '_';
  let name = '';
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    const valid = i === 0 ? isNameStart(code) : isNameCharacter(code);
    name += valid ? key[i] : `_x${code.toString(16).toUpperCase().padStart(4, '0')}_`;
  }
  return name;
}

/** JSON nested deeper than this is written as text: the XML writer recurses, and the stack is finite. */
const JSON_DEPTH_MAX = 512;

function depthWithin(text: string, depthMax: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x7b || code === 0x5b) {
      if (++depth > depthMax) return false;
    } else if (code === 0x7d || code === 0x5d) {
      depth--;
    }
  }
  return true;
}

/** JSON text parsed, for the XML representations; the text itself when it is not JSON or nests too deeply. */
export function parsedOrText(text: string): unknown {
  if (!depthWithin(text, JSON_DEPTH_MAX)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `<name>…</name>` for a JSON value; `<name />` when it is null or empty. Arrays hold `<item>`s. */
export function jsonElement(name: string, value: unknown): string {
  if (value instanceof JsonText) return jsonTextElement(name, value.text);
  if (value === null || value === undefined || value === '') return `<${name} />`;
  if (Array.isArray(value)) {
    if (value.length === 0) return `<${name} />`;
    return `<${name}>${value.map((item) => jsonElement('item', item)).join('')}</${name}>`;
  }
  if (typeof value === 'object') {
    const children = jsonChildren(value as Record<string, unknown>);
    return children === '' ? `<${name} />` : `<${name}>${children}</${name}>`;
  }
  // What is left is a string, or a number or boolean from parsed JSON, whose JSON text is its text.
  return `<${name}>${escapeXml(typeof value === 'string' ? value : JSON.stringify(value))}</${name}>`;
}

/** The properties of an object as elements; an array property as one element per item. */
export function jsonChildren(object: Record<string, unknown>): string {
  let xml = '';
  for (const [key, value] of Object.entries(object)) {
    const name = elementName(key);
    if (Array.isArray(value)) for (const item of value) xml += jsonElement(name, item);
    else xml += jsonElement(name, value);
  }
  return xml;
}

/**
 * Stored JSON text as XML, from its source: numbers are written as the client wrote them
 * (parsing would round 123123123123123123). Text nested too deeply is written as text.
 */
function jsonTextElement(name: string, text: string): string {
  if (!depthWithin(text, JSON_DEPTH_MAX)) return jsonElement(name, text);
  let start = 0;
  while (' \t\n\r'.includes(text[start])) start++;
  let end = text.length;
  while (end > start && ' \t\n\r'.includes(text[end - 1])) end--;
  return sourceElement(name, text, { start, end });
}

function sourceElement(name: string, text: string, span: Span): string {
  const first = text[span.start];
  if (first === '{') {
    let children = '';
    for (const member of objectMembers(text, span) ?? []) {
      const child = elementName(member.key);
      if (text[member.value.start] === '[') {
        for (const item of arrayElements(text, member.value) ?? []) children += sourceElement(child, text, item);
      } else {
        children += sourceElement(child, text, member.value);
      }
    }
    return children === '' ? `<${name} />` : `<${name}>${children}</${name}>`;
  }
  if (first === '[') {
    const items = arrayElements(text, span) ?? [];
    return items.length === 0 ? `<${name} />` : `<${name}>${items.map((item) => sourceElement('item', text, item)).join('')}</${name}>`;
  }
  const literal = text.slice(span.start, span.end);
  if (first === '"') return jsonElement(name, JSON.parse(literal) as string);
  return literal === 'null' ? `<${name} />` : `<${name}>${escapeXml(literal)}</${name}>`;
}
