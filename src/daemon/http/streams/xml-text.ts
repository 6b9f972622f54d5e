/**
 * JSON values as XML elements (objects become child elements, an array property repeated
 * elements, as JSON-to-XML converters do), through the one XML writer (common/xml-writer.ts).
 */
import { arrayElements, objectMembers, type Span } from '../../../common/json-scan.js';
import { element, elementName, escapeXml } from '../../../common/xml-writer.js';
import { JsonText } from './json-text.js';

export { elementName, escapeXml };

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
  if (value === null || value === undefined || value === '') return element(name, '');
  if (Array.isArray(value)) {
    return element(name, value.map((item) => jsonElement('item', item)).join(''));
  }
  if (typeof value === 'object') {
    const children = jsonChildren(value as Record<string, unknown>);
    return element(name, children);
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
    return element(name, children);
  }
  if (first === '[') {
    const items = arrayElements(text, span) ?? [];
    return element(name, items.map((item) => sourceElement('item', text, item)).join(''));
  }
  const literal = text.slice(span.start, span.end);
  if (first === '"') return jsonElement(name, JSON.parse(literal) as string);
  return element(name, literal === 'null' ? '' : escapeXml(literal));
}
