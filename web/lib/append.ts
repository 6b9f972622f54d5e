/** The append form's event, checked and written as a one-event batch of the node's JSON format. */
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
  const parse = (text: string, what: string) => {
    if (text.trim() === '') return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      errors.push(`the ${what} is not valid JSON: ${(error as Error).message}`);
      return undefined;
    }
  };
  const data = parse(input.data, 'data');
  const metadata = parse(input.metadata, 'metadata');
  if (input.expectedVersion.trim() !== '' && !/^(-[124]|[0-9]+)$/.test(input.expectedVersion.trim())) errors.push('the expected version must be -2 (any), -1 (no stream), -4 (stream exists) or an event number');
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, body: JSON.stringify([{ eventId: input.eventId, eventType: input.eventType, data: data ?? {}, ...(metadata === undefined ? {} : { metadata }) }]) };
}
