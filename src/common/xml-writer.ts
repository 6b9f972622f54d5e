/**
 * The one XML writer of svcdb: the declaration, escaping, element names and elements, as every
 * XML reply writes them (Atom feeds and entries, event documents, users, subscriptions, stats).
 * fast-xml-parser's XMLBuilder was considered and not taken: it writes an empty element `<a/>`
 * where the wire format has `<link … />` with a space, and it does not drop the characters XML
 * 1.0 cannot carry. Output is not indented, as the wire format says.
 */

export const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

// Markup characters (values are written in double quotes), the control characters XML forbids,
// non-characters and lone surrogates.
// eslint-disable-next-line no-control-regex -- the control characters are what it finds
const SPECIAL = /[&<>"\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const SPECIAL_ALL = new RegExp(SPECIAL.source, 'g');
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** Text or an attribute value (in double quotes) as XML; characters XML 1.0 cannot carry are dropped. */
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

/** `_x002F_` and the like: an underscore that starts one is escaped itself, so names decode back. */
const ESCAPE_LIKE = /^_[Xx]([0-9a-fA-F]{4}|[0-9a-fA-F]{8})_/;

/**
 * Any string as an element name, as .NET's XmlConvert.EncodeName writes it: a character a name
 * may not hold becomes `_xHHHH_` (`/var/lib` is `_x002F_var_x002F_lib`), and so does an
 * underscore that would read as the start of such an escape.
 */
export function elementName(key: string): string {
  if (key.length === 0) return '_';
  let name = '';
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    const valid = i === 0 ? isNameStart(code) : isNameCharacter(code);
    const escapeLike = code === 95 && ESCAPE_LIKE.test(key.slice(i, i + 11));
    name += valid && !escapeLike ? key[i] : `_x${code.toString(16).toUpperCase().padStart(4, '0')}_`;
  }
  return name;
}

/** `<name>inner</name>`, or `<name />` when there is nothing inside. `inner` is XML already. */
export function element(name: string, inner: string): string {
  return inner === '' ? `<${name} />` : `<${name}>${inner}</${name}>`;
}

/** `<name>inner</name>`, also when `inner` is empty (the documents whose roots were always written so). */
export function wrap(name: string, inner: string): string {
  return `<${name}>${inner}</${name}>`;
}

/** A whole document: the declaration and one root element holding `inner` (XML already). */
export function xmlDocument(root: string, inner: string): string {
  return XML_DECLARATION + wrap(root, inner);
}
