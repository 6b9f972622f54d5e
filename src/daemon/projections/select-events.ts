/**
 * Which events of a page of the log a projection is given. Events of system streams ($…) are
 * never given to fromAll (a projection would otherwise read its own checkpoints and results);
 * a stream or category selected by name is given whatever its name. Links ($>) are skipped by
 * fromAll unless $includeLinks, and resolved to their targets in selected streams.
 */
import type { Engine } from '../../storage/engine.js';
import { EventFlags, type EventRecord } from '../../storage/record.js';
import { parseLink } from '../services/streams.js';
import { categoryOf } from './definition.js';
import type { EventSelector } from './processor.js';
import type { SourceEvent } from './source-event.js';

export type LinkReader = Pick<Engine, 'readEvent'>;

const LINK_TYPE = '$>';

function selected(selector: EventSelector, event: EventRecord): boolean {
  if (selector.all) return !event.streamName.startsWith('$');
  if (selector.streams.has(event.streamName)) return true;
  return selector.categories.size > 0 && selector.categories.has(categoryOf(event.streamName));
}

function resolved(reader: LinkReader, link: EventRecord): EventRecord | undefined {
  const target = parseLink(link.data.toString('utf8'));
  if (!target) return undefined;
  try {
    return reader.readEvent(target.streamName, target.eventNumber).event;
  } catch {
    // A link whose target name is not a valid stream name points at nothing.
    return undefined;
  }
}

/** The page's events for the projection, up to (not including) `endPosition`. */
export function selectEvents(selector: EventSelector, reader: LinkReader, events: readonly EventRecord[], endPosition: number): SourceEvent[] {
  const out: SourceEvent[] = [];
  for (const event of events) {
    if (event.logPosition >= endPosition) break;
    if (!selected(selector, event)) continue;
    if ((event.flags & EventFlags.streamDelete) !== 0) {
      if (selector.deletions) out.push({ event, deleted: true, position: event.logPosition });
      continue;
    }
    if (event.eventType === LINK_TYPE && !selector.includeLinks) {
      if (!selector.resolveLinks) continue;
      const target = resolved(reader, event);
      if (target) out.push({ event: target, link: event, deleted: false, position: event.logPosition });
      continue;
    }
    out.push({ event, deleted: false, position: event.logPosition });
  }
  return out;
}
