/**
 * Which events of a page of the log a projection is given. Events of system streams ($…) are
 * never given to fromAll (a projection would otherwise read its own checkpoints and results);
 * a stream or category selected by name is given whatever its name. Links ($>) are skipped by
 * fromAll unless $includeLinks, and resolved to their targets in selected streams. A projection
 * with a $deleted handler is given the deletions of its streams, hard (the tombstone) and soft
 * (the metadata event that sets `$tb` to the end, which a soft delete writes).
 */
import type { Engine } from '../../storage/engine.js';
import { EventFlags, isJsonEvent, type EventRecord } from '../../storage/log/record.js';
import { DELETED_EVENT_NUMBER, isMetadataStream, METADATA_EVENT_TYPE, originalStreamOf, parseStoredMetadata } from '../../storage/streams/stream-metadata.js';
import { parseLink } from '../services/streams.js';
import type { EventSelector } from './processor.js';
import type { SourceEvent } from './source-event.js';

export type LinkReader = Pick<Engine, 'readEvent'>;

const LINK_TYPE = '$>';
/** Metadata of a link to a deletion: the stream deleted, and that it is a deletion. */
export const ORIGINAL_STREAM_KEY = '$o';
export const DELETED_LINK_KEY = '$deleted';

function selected(selector: EventSelector, streamName: string): boolean {
  return selector.all ? !streamName.startsWith('$') : selector.streams.has(streamName);
}

/** The stream a record deletes: its own for a tombstone; X for metadata of $$X whose `$tb` is the end (a soft delete). */
export function deletedStreamOf(event: EventRecord): string | undefined {
  if ((event.flags & EventFlags.streamDelete) !== 0) return event.streamName;
  if (event.eventType !== METADATA_EVENT_TYPE || !isMetadataStream(event.streamName)) return undefined;
  const { truncateBefore } = parseStoredMetadata(event.data, isJsonEvent(event));
  return truncateBefore === DELETED_EVENT_NUMBER ? originalStreamOf(event.streamName) : undefined;
}

function resolved(reader: LinkReader, link: EventRecord, mayRead: ((streamName: string) => boolean) | undefined): EventRecord | undefined {
  const target = parseLink(link.data.toString('utf8'));
  if (!target) return undefined;
  if (mayRead && !mayRead(target.streamName)) return undefined;
  try {
    return reader.readEvent(target.streamName, target.eventNumber).event;
  } catch {
    // A link whose target name is not a valid stream name points at nothing.
    return undefined;
  }
}

/** The stream whose deletion a link stands for: $by_category links deletions with `$deleted` and the stream in `$o`. */
function deletionLinkedBy(link: EventRecord): string | undefined {
  if (link.metadata.length === 0 || link.metadata[0] !== 0x7b) return undefined;
  try {
    const metadata = JSON.parse(link.metadata.toString('utf8')) as Record<string, unknown>;
    return metadata[DELETED_LINK_KEY] !== undefined && typeof metadata[ORIGINAL_STREAM_KEY] === 'string' ? metadata[ORIGINAL_STREAM_KEY] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The page's events for the projection, up to (not including) `endPosition`. `mayRead`, for a
 * projection held to a user's rights, says which streams links may be resolved into.
 */
export function selectEvents(
  selector: EventSelector, reader: LinkReader, events: readonly EventRecord[], endPosition: number, mayRead?: (streamName: string) => boolean,
): SourceEvent[] {
  const out: SourceEvent[] = [];
  for (const event of events) {
    if (event.logPosition >= endPosition) break;
    const deletedStream = selector.deletions ? deletedStreamOf(event) : undefined;
    if (deletedStream !== undefined) {
      if (selected(selector, deletedStream)) out.push({ event, deleted: true, deletedStream, position: event.logPosition });
      continue;
    }
    if (!selected(selector, event.streamName) || (event.flags & EventFlags.streamDelete) !== 0) continue;
    if (event.eventType === LINK_TYPE && !selector.includeLinks) {
      if (!selector.resolveLinks) continue;
      const linkedDeletion = deletionLinkedBy(event);
      if (linkedDeletion !== undefined) {
        if (selector.deletions) out.push({ event, link: event, deleted: true, deletedStream: linkedDeletion, position: event.logPosition });
        continue;
      }
      const target = resolved(reader, event, mayRead);
      if (target) out.push({ event: target, link: event, deleted: false, position: event.logPosition });
      continue;
    }
    out.push({ event, deleted: false, position: event.logPosition });
  }
  return out;
}
