import type { Logger } from '../common/logger.js';
import type { AllPage, SystemStreamSkip } from './reader.js';

export type { SystemStreamSkip };

/**
 * Consumers follow the log by position: long polls now, persistent subscriptions, projections
 * and scavenge reporting next. A consumer is woken after a commit is acknowledged (never inside
 * it), reads from its own position up to what is readable, and hands each page to its handler.
 * A handler that throws stops its consumer alone; a slow one falls behind and catches up by
 * reading. Neither delays, fails or reorders an append, and neither loses its place.
 */

export interface ConsumerOptions {
  /** Names the consumer in logs and stats. */
  name: string;
  /** Log position to read from; the readable end when absent (only what comes next). */
  fromPosition?: number;
  /** Records per page handed to `handle`. */
  pageEventsMax?: number;
  /**
   * Handles one page; the consumer's position moves past the page when it returns (or its promise
   * resolves). Throwing (or rejecting) stops the consumer.
   */
  handle: (page: AllPage) => void | Promise<void>;
  /** When false, the consumer skips to the readable end without reading (nobody is listening). */
  wanted?: () => boolean;
  /**
   * Events of system streams (`$`…) are left out of the pages, passed over before they are
   * decoded; a page may then hold fewer events than `pageEventsMax`, even none, before the end.
   * `butMetadata`: those of metadata streams (`$$`…) are kept.
   */
  skipSystemStreams?: SystemStreamSkip;
  /**
   * Reads a page in place of the log's own read, for consumers that share the pages they read;
   * it answers what the log would: the records from `position` on, at most `maxCount`.
   */
  readPage?: (position: number, maxCount: number, skipSystemStreams: SystemStreamSkip) => AllPage;
}

export type ConsumerState = 'idle' | 'running' | 'stopped' | 'failed';

export interface ConsumerStatus {
  name: string;
  state: ConsumerState;
  position: number;
  /** Bytes of log between the consumer and the readable end. */
  behindBytes: number;
  pagesHandled: number;
  /** The error that stopped the consumer, when it failed. */
  error?: string;
}

/** What the consumers read through: the engine's $all reads and its readable end. */
export interface ConsumerLog {
  readAllForward(position: number, maxCount: number, skipSystemStreams: SystemStreamSkip): AllPage;
  readableEnd(): number;
}

const PAGE_EVENTS_MAX_DEFAULT = 500;

export class LogConsumer {
  private state: ConsumerState = 'idle';
  private woken = false;
  private pagesHandled = 0;
  private error: string | undefined;
  private position: number;
  private readonly pageEventsMax: number;

  constructor(private readonly options: ConsumerOptions, private readonly log: ConsumerLog, private readonly logger: Logger) {
    this.position = options.fromPosition ?? log.readableEnd();
    this.pageEventsMax = options.pageEventsMax ?? PAGE_EVENTS_MAX_DEFAULT;
  }

  get name(): string {
    return this.options.name;
  }

  /** New records are readable: read them now, or after the page in hand. */
  wake(): void {
    if (this.state === 'stopped' || this.state === 'failed') return;
    this.woken = true;
    if (this.state === 'idle') void this.run();
  }

  /** Stops the consumer; a page in hand finishes first. */
  stop(): void {
    if (this.state !== 'failed') this.state = 'stopped';
  }

  status(): ConsumerStatus {
    const status: ConsumerStatus = {
      name: this.name, state: this.state, position: this.position,
      behindBytes: Math.max(0, this.log.readableEnd() - this.position), pagesHandled: this.pagesHandled,
    };
    if (this.error !== undefined) status.error = this.error;
    return status;
  }

  private async run(): Promise<void> {
    this.state = 'running';
    try {
      while (this.woken && this.state === 'running') {
        this.woken = false;
        await this.catchUp();
      }
    } catch (error) {
      this.fail(error);
      return;
    }
    if (this.state === 'running') this.state = 'idle';
  }

  /** Reads and handles pages until the readable end, yielding to the event loop between pages. */
  private async catchUp(): Promise<void> {
    while (this.state === 'running' && this.position < this.log.readableEnd()) {
      if (this.options.wanted?.() === false) {
        this.position = this.log.readableEnd();
        return;
      }
      const read = this.options.readPage ?? ((position, maxCount, skip) => this.log.readAllForward(position, maxCount, skip));
      const page = read(this.position, this.pageEventsMax, this.options.skipSystemStreams ?? false);
      await this.options.handle(page);
      this.pagesHandled++;
      if (page.nextPosition <= this.position) return;
      this.position = page.nextPosition;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private fail(error: unknown): void {
    this.state = 'failed';
    this.error = error instanceof Error ? error.message : String(error);
    this.logger.error({ consumer: this.name, position: this.position, err: error }, 'log consumer failed and stopped');
  }
}

/**
 * The engine's consumers. `committed()` is called once a commit is acknowledged: the wakes are
 * scheduled for a later turn of the event loop, so the replies to the appends go out first.
 */
export class LogConsumers {
  private readonly consumers = new Set<LogConsumer>();
  private wakeScheduled = false;

  constructor(private readonly log: ConsumerLog, private readonly logger: Logger) {}

  follow(options: ConsumerOptions): LogConsumer {
    // The storage logger as it is: its lines name the consumer, and a second `component`
    // binding would put the key twice on every line.
    const consumer = new LogConsumer(options, this.log, this.logger);
    this.consumers.add(consumer);
    if (options.fromPosition !== undefined && options.fromPosition < this.log.readableEnd()) consumer.wake();
    return consumer;
  }

  unfollow(consumer: LogConsumer): void {
    consumer.stop();
    this.consumers.delete(consumer);
  }

  committed(): void {
    if (this.wakeScheduled || this.consumers.size === 0) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      for (const consumer of this.consumers) consumer.wake();
    });
  }

  statuses(): ConsumerStatus[] {
    return [...this.consumers].map((consumer) => consumer.status());
  }

  close(): void {
    for (const consumer of this.consumers) consumer.stop();
    this.consumers.clear();
  }
}
