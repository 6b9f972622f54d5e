/**
 * The users API in XML (`text/xml`, `application/xml`), beside JSON: the same documents, written
 * as JSON-to-XML converters write them (root `result`, an array property as repeated elements),
 * and request bodies read into the objects users-body.ts takes. Groups are accepted as repeated
 * elements (`<Groups>a</Groups><Groups>b</Groups>`) or as items of one element
 * (`<Groups><string>a</string></Groups>`, as .NET writes a list; `<item>` works too).
 * Parsing uses fast-xml-parser: no entity of a DOCTYPE is expanded, and a body with one is refused.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { Errors } from '../../common/errors.js';
import { MediaType, type MediaTypeName } from './streams/media-types.js';
import { jsonChildren } from './streams/xml-text.js';

/** What the users API answers in, JSON first (no Accept, or `*\/*`, is JSON). */
export const USERS_TYPES: readonly MediaTypeName[] = [MediaType.json, MediaType.textXml, MediaType.xml];

export const isXmlType = (type: string) => type === MediaType.textXml || type === MediaType.xml;

export function usersXml(document: Record<string, unknown>): string {
  return `<?xml version="1.0" encoding="utf-8"?><result>${jsonChildren(document)}</result>`;
}

const parser = new XMLParser({
  ignoreAttributes: true,
  ignoreDeclaration: true,
  parseTagValue: false,
  trimValues: true,
  processEntities: true,
});

/** A list field as strings, whichever of the accepted forms it came in. */
function listOf(value: unknown): unknown {
  if (value === '') return [];
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const items = Object.values(value as Record<string, unknown>);
    if (items.length === 1) return [items[0]].flat();
  }
  return Array.isArray(value) ? value : [value];
}

/** The fields of the root element of an XML request body; an empty body is no body. */
export function parseUsersXml(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return undefined;
  if (/<!DOCTYPE/i.test(text)) throw Errors.userInvalid.create('the XML body must not hold a DOCTYPE');
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw Errors.userInvalid.create(`the body is not well-formed XML (line ${valid.err.line}: ${valid.err.msg})`);
  const roots = Object.values(parser.parse(text) as Record<string, unknown>);
  const fields = roots.length === 1 && roots[0] === '' ? {} : roots.length === 1 ? roots[0] : undefined;
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    throw Errors.userInvalid.create('the XML body must be one element holding one element per field');
  }
  const body: Record<string, unknown> = { ...(fields as Record<string, unknown>) };
  for (const name of ['Groups', 'groups']) if (name in body) body[name] = listOf(body[name]);
  return body;
}
