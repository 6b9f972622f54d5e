/**
 * The statistics tree as clients ask for it: one branch by path, flat `proc-mem` keys, or XML
 * with the root element `Stats`.
 */

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

/**
 * Any string as an XML element name: characters a name may not hold become `_xHHHH_`, the
 * escape .NET's XmlConvert uses, so `/var/lib` is `_x002F_var_x002F_lib`.
 */
export function xmlName(name: string): string {
  let encoded = '';
  for (let index = 0; index < name.length; index++) {
    const char = name[index];
    const allowed = index === 0 ? /[A-Za-z_]/ : /[A-Za-z0-9_.-]/;
    const escapeLike = char === '_' && name[index + 1] === 'x';
    encoded += allowed.test(char) && !escapeLike ? char : `_x${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`;
  }
  return encoded;
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function element(name: string, value: StatsValue): string {
  const tag = xmlName(name);
  if (typeof value !== 'object') return `<${tag}>${escapeText(String(value))}</${tag}>`;
  return `<${tag}>${Object.entries(value).map(([key, child]) => element(key, child)).join('')}</${tag}>`;
}

export function toXml(value: StatsValue, root = 'Stats'): string {
  return `<?xml version="1.0" encoding="utf-8"?>${element(root, value)}`;
}
