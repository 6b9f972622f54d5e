/**
 * The body of a group's create or update: the settings (SubscriptionItem) as JSON or as XML,
 * read by its Content-Type. Any other type is a 415, so settings sent in a form or as text are
 * never dropped for the defaults. No body at all means no settings: the body is optional.
 */
import type { FastifyRequest } from 'fastify';
import { Errors } from '../../../common/errors.js';
import { bodyMediaType } from '../streams/media-types.js';
import { parseXmlRoot } from '../xml-body.js';

const JSON_TYPES: ReadonlySet<string> = new Set(['application/json', 'application/vnd.svc.events+json']);
const XML_TYPES: ReadonlySet<string> = new Set(['text/xml', 'application/xml']);

const invalid = (why: string) => Errors.subscriptionSettingsInvalid.create(why);

/** The settings object the request sent; undefined when it sent none. */
export function settingsBody(request: FastifyRequest): unknown {
  const text = typeof request.body === 'string' ? request.body : '';
  const mediaType = bodyMediaType(request.headers['content-type']);
  if (text.trim() === '') return undefined;
  if (JSON_TYPES.has(mediaType)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw invalid('the body is not valid JSON; send a JSON object of settings');
    }
  }
  if (XML_TYPES.has(mediaType)) return parseXmlRoot(text, invalid) || undefined;
  throw Errors.httpMediaType.create(request.headers['content-type'] ?? '');
}
