/**
 * The events to redact, as an operator lists them: `eventNumber@stream`, separated by commas on
 * the command line or one per line in a file. Event numbers are written in decimal; the stream
 * is everything after the first `@`.
 */
import { readFileSync } from 'node:fs';
import { Errors } from '../../common/errors.js';

export interface EventReference {
  streamName: string;
  eventNumber: number;
}

const EVENT_NUMBER = /^\d{1,16}$/;

export function formatEvent(event: EventReference): string {
  return `${event.eventNumber}@${event.streamName}`;
}

function parseOne(text: string, source: string): EventReference {
  const at = text.indexOf('@');
  const number = at < 0 ? '' : text.slice(0, at);
  const streamName = at < 0 ? '' : text.slice(at + 1);
  if (!EVENT_NUMBER.test(number) || !Number.isSafeInteger(Number(number))) {
    throw Errors.redactEventsInvalid.create(source, `"${text}" does not start with an event number and @`);
  }
  if (streamName.length === 0) throw Errors.redactEventsInvalid.create(source, `"${text}" names no stream after @`);
  return { streamName, eventNumber: Number(number) };
}

/** Parses `items` (already split), dropping repeats; an empty list or a bad item is refused. */
export function parseEventItems(items: readonly string[], source: string): EventReference[] {
  const seen = new Map<string, EventReference>();
  for (const item of items) {
    const text = item.trim();
    if (text.length === 0) continue;
    const event = parseOne(text, source);
    seen.set(formatEvent(event), event);
  }
  if (seen.size === 0) throw Errors.redactEventsInvalid.create(source, 'no event is listed');
  return [...seen.values()];
}

/** `--events 5@orders-1,7@orders-1`. */
export function parseEventList(list: string): EventReference[] {
  return parseEventItems(list.split(','), '--events');
}

/** `--events-file FILE`: one event per line; blank lines and lines starting with # are skipped. */
export function parseEventFile(text: string, file: string): EventReference[] {
  return parseEventItems(text.split(/\r?\n/).filter((line) => !line.trimStart().startsWith('#')), `--events-file ${file}`);
}

/** The events of `--events` or of the file `--events-file` names. */
export function eventsFromFlags(list: string | undefined, file: string | undefined): EventReference[] {
  if (list !== undefined || file === undefined) return parseEventList(list ?? '');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw Errors.redactEventsInvalid.create(`--events-file ${file}`, `the file cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  return parseEventFile(text, file);
}
