/**
 * Parked messages of a group: a message parked (by a nack, or when its retries ran out) is a link
 * (`$>`, `{n}@{stream}`) appended to `$persistentsubscription-{stream}::{group}-parked`, with the
 * reason in its metadata. A replay reads the parked links up to `stopAt`, hands their events back
 * to the group, and moves the parked stream's `$tb` past them only once every one of them was
 * handled, so a replay cut short by a crash loses nothing: the messages are still parked.
 */
import type { Logger } from '../../common/logger.js';
import { parseLink } from '../services/streams.js';
import { messageOf, type Message } from './message.js';
import { PARKED_EVENT_TYPE, parkedStreamOf } from './names.js';
import type { SystemStreams } from './system-streams.js';

const REPLAY_PAGE = 500;

export class ParkedMessages {
  readonly streamName: string;
  /** Parked event numbers handed back and not yet handled. */
  private readonly replaying = new Set<number>();
  /** Where `$tb` goes once the replay is done. */
  private replayEnd = -1;

  constructor(private readonly system: SystemStreams, private readonly subscribed: string, group: string, private readonly logger: Logger) {
    this.streamName = parkedStreamOf(subscribed, group);
  }

  get isReplaying(): boolean {
    return this.replaying.size > 0;
  }

  /** Appends the parked link; resolves once it is durable. */
  async park(message: Message, reason: string): Promise<void> {
    await this.system.append(this.streamName, [{
      eventType: PARKED_EVENT_TYPE,
      data: `${message.eventNumber}@${this.subscribed}`,
      isJson: false,
      metadata: JSON.stringify({ reason, messageId: message.id, retryCount: message.retryCount }),
    }]);
  }

  /** Messages parked and not replayed. */
  count(): number {
    const last = this.system.lastEventNumber(this.streamName);
    if (last < 0) return 0;
    const first = Math.max(0, this.system.metadata(this.streamName).truncateBefore ?? 0);
    return Math.max(0, last + 1 - first);
  }

  /**
   * The parked messages before `stopAt` (a parked stream event number; all when absent), as
   * messages to deliver again. None while an earlier replay is still being handled.
   */
  replay(stopAt: number | undefined): Message[] {
    if (this.isReplaying) return [];
    const last = this.system.lastEventNumber(this.streamName);
    const end = Math.min(stopAt ?? last + 1, last + 1);
    const messages: Message[] = [];
    for (let from = 0; from < end;) {
      const page = this.system.readForward(this.streamName, from, Math.min(REPLAY_PAGE, end - from));
      if (page.status !== 'success' || page.events.length === 0) break;
      for (const { event } of page.events) {
        if (event.eventNumber >= end) break;
        const target = this.targetOf(event.data.toString('utf8'));
        if (target === undefined) continue;
        messages.push(messageOf(target, 0, event.eventNumber));
        this.replaying.add(event.eventNumber);
      }
      if (page.isEndOfStream) break;
      from = page.nextEventNumber;
    }
    this.replayEnd = end;
    // Nothing to hand back (only links to events gone since): the replay is over at once.
    if (messages.length === 0 && end > 0) void this.truncate(end);
    return messages;
  }

  /** A replayed message was handled (acknowledged, skipped or parked again). */
  done(parkedNumber: number): void {
    if (!this.replaying.delete(parkedNumber) || this.replaying.size > 0) return;
    void this.truncate(this.replayEnd);
  }

  /** A replay the group no longer follows (a reset): the messages stay parked. */
  abandon(): void {
    this.replaying.clear();
  }

  private targetOf(linkData: string) {
    const target = parseLink(linkData);
    if (target === undefined) return undefined;
    const read = this.system.readEvent(target.streamName, target.eventNumber);
    return read.status === 'success' ? read.event?.event : undefined;
  }

  private async truncate(end: number): Promise<void> {
    try {
      await this.system.writeMetadata(this.streamName, { $tb: end });
    } catch (error) {
      this.logger.warn({ err: error, stream: this.streamName }, 'could not mark replayed parked messages; they stay parked');
    }
  }
}
