/**
 * XML request bodies (the users API, XML event batches), parsed one way: fast-xml-parser, with
 * attributes ignored and values kept as text. A body with a DOCTYPE is refused, so no entity
 * is ever expanded; a body that is not well-formed is refused with the parser's line and reason.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';

const parser = new XMLParser({
  ignoreAttributes: true,
  ignoreDeclaration: true,
  parseTagValue: false,
  trimValues: true,
  processEntities: true,
  // Lists of repeated elements stay lists even when they hold one element.
  isArray: (name, jpath) => typeof jpath === 'string' && jpath.split('.').length === 2 && (name === 'event' || name === 'entry'),
});

/**
 * The content of the single root element: an object of its child elements, or '' when empty.
 * `invalid` makes the coded error of the calling API from a reason.
 */
export function parseXmlRoot(text: string, invalid: (why: string) => Error): unknown {
  if (/<!DOCTYPE/i.test(text)) throw invalid('the XML body must not hold a DOCTYPE');
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw invalid(`the body is not well-formed XML (line ${valid.err.line}: ${valid.err.msg})`);
  let document: Record<string, unknown>;
  try {
    document = parser.parse(text) as Record<string, unknown>;
  } catch (error) {
    // The parser's own limits, such as how deep elements may nest.
    throw invalid(`the XML body cannot be read: ${(error as Error).message}`);
  }
  const roots = Object.values(document);
  if (roots.length !== 1) throw invalid('the XML body must have one root element');
  return roots[0];
}
