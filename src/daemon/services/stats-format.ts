/**
 * The statistics tree as clients ask for it: one branch by path, flat `proc-mem` keys, or XML
 * with the root element `Stats`.
 */
import { XML_DECLARATION, elementName, escapeXml, wrap } from '../../common/xml-writer.js';

export type StatsValue = string | number | boolean | { [key: string]: StatsValue };

/** The branch or value at `segments` (`['proc', 'gc']`), or undefined when there is none. */
export function selectPath(tree: StatsValue, segments: readonly string[]): StatsValue | undefined {
  let node: StatsValue | undefined = tree;
  for (const segment of segments) {
    if (typeof node !== 'object' || !Object.hasOwn(node, segment)) return undefined;
    node = node[segment];
  }
  return node;
}

/** Every leaf under one key made of its path joined with `-`, as the reference's `?group=false`. */
export function flatten(tree: StatsValue, prefix = '', into: Record<string, string | number | boolean> = {}): Record<string, string | number | boolean> {
  if (typeof tree !== 'object') {
    into[prefix] = tree;
    return into;
  }
  for (const [key, value] of Object.entries(tree)) flatten(value, prefix === '' ? key : `${prefix}-${key}`, into);
  return into;
}

function statsElement(name: string, value: StatsValue): string {
  const tag = elementName(name);
  if (typeof value !== 'object') return wrap(tag, escapeXml(String(value)));
  return wrap(tag, Object.entries(value).map(([key, child]) => statsElement(key, child)).join(''));
}

export function toXml(value: StatsValue, root = 'Stats'): string {
  return XML_DECLARATION + statsElement(root, value);
}
