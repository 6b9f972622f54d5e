/**
 * The append form's event, checked and written as a one-event batch of the node's JSON format.
 * The data and metadata go into the batch as the user typed them: the node stores those bytes,
 * so nothing typed is parsed and written again (big numbers and `1.0` stay as they are).
 */
import { jsonError } from './json-text.js';
import { isUuid } from './uuid.js';

export interface AppendInput {
  eventType: string;
  eventId: string;
  data: string;
  metadata: string;
  expectedVersion: string;
}

/** The batch body for the form's event, or what to fix. */
export function appendBody(input: AppendInput): { ok: true; body: string } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  if (input.eventType.trim() === '') errors.push('the event type is empty');
  if (!isUuid(input.eventId)) errors.push('the event id must be a UUID');
  const check = (text: string, what: string) => {
    const problem = text.trim() === '' ? undefined : jsonError(text);
    if (problem !== undefined) errors.push(`the ${what} is not valid JSON: ${problem}`);
  };
  check(input.data, 'data');
  check(input.metadata, 'metadata');
  if (input.expectedVersion.trim() !== '' && !/^(-[124]|[0-9]+)$/.test(input.expectedVersion.trim())) errors.push('the expected version must be -2 (any), -1 (no stream), -4 (stream exists) or an event number');
  if (errors.length > 0) return { ok: false, errors };
  const data = input.data.trim() === '' ? '{}' : input.data;
  const metadata = input.metadata.trim() === '' ? '' : `,"metadata":${input.metadata}`;
  return { ok: true, body: `[{"eventId":${JSON.stringify(input.eventId)},"eventType":${JSON.stringify(input.eventType)},"data":${data}${metadata}}]` };
}
