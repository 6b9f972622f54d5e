/**
 * The users API in XML (`text/xml`, `application/xml`), beside JSON: the same documents, written
 * as JSON-to-XML converters write them (root `result`, an array property as repeated elements),
 * and request bodies read into the objects users-body.ts takes. Groups are accepted as repeated
 * elements (`<Groups>a</Groups><Groups>b</Groups>`) or as items of one element
 * (`<Groups><string>a</string></Groups>`, as .NET writes a list; `<item>` works too).
 * Bodies are parsed by xml-body.ts: a body with a DOCTYPE is refused, no entity is expanded.
 */
import { Errors } from '../../common/errors.js';
import { xmlDocument } from '../../common/xml-writer.js';
import { MediaType, type MediaTypeName } from './streams/media-types.js';
import { jsonChildren } from './streams/xml-text.js';
import { parseXmlRoot } from './xml-body.js';

/** What the users API answers in, JSON first (no Accept, or `*\/*`, is JSON). */
export const USERS_TYPES: readonly MediaTypeName[] = [MediaType.json, MediaType.textXml, MediaType.xml];

export const isXmlType = (type: string) => type === MediaType.textXml || type === MediaType.xml;

export function usersXml(document: Record<string, unknown>): string {
  return xmlDocument('result', jsonChildren(document));
}

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
  const root = parseXmlRoot(text, (why) => Errors.userInvalid.create(why));
  const fields = root === '' ? {} : root;
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    throw Errors.userInvalid.create('the XML body must be one element holding one element per field');
  }
  const body: Record<string, unknown> = { ...(fields as Record<string, unknown>) };
  for (const name of ['Groups', 'groups']) if (name in body) body[name] = listOf(body[name]);
  return body;
}
