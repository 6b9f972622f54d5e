import type { Logger } from '../../common/logger.js';
import { commitEndOrTimeout, type ClientCommits } from '../log/give-way.js';
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
  readPage?: (position: number, maxCount: number, skipSystemStreams: SystemStreamSkip) => Promise<AllPage>;
  /**
   * Background work (projections): gives way to clients' appends. While clients wait for the
   * writer, the background consumers take turns (BackgroundTurns); otherwise they read at once.
   * They fall behind under a write load that saturates the writer and catch up once it eases.
   */
  background?: boolean;
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

/** What the consumers read through: the engine's $all reads, its readable end and its clients' commits. */
export interface ConsumerLog extends ClientCommits {
  /** Reads off the event loop: a cold log stalls the consumer, never the appends. */
  readAllForward(position: number, maxCount: number, skipSystemStreams: SystemStreamSkip): Promise<AllPage>;
  readableEnd(): number;
}

const PAGE_EVENTS_MAX_DEFAULT = 500;
/**
 * The share of the time background pages may take while clients wait for the writer. The writes a
 * page's events cause (a projection's links) are not counted in it, and the cheaper a page became
 * the more links a share let through: with the five standard projections under 16 appenders, a
 * tenth left appends at 70–73% of their rate without projections, a twentieth at 77–82% (medians
 * of three loads), and the projections were as far behind at the end of a load (60–80 MiB) and
 * caught up within about two seconds of it either way.
 */
export const BACKGROUND_SHARE = 0.05;

/**
 * The share of the time clients' reads of the log (pages of streams and $all, persistent
 * subscriptions' messages) may take while other clients' appends wait for the writer: readers
 * scanning the log would otherwise take the event loop from the appends, whose replies wait
 * behind every page encoded.
 */
export const CLIENT_READ_SHARE = 0.25;

/**
 * Turns of the background consumers while clients wait for the writer: one page at a time, each at
 * the end of a group commit, and no more often than keeps their pages to BACKGROUND_SHARE of the
 * time (a page's time runs from its turn until its consumer asks for the next or stops). Appends,
 * whose commits each take two turns of the event loop, then keep most of it. When no client waits
 * (a lone writer, or none) background pages go at once.
 */
export class BackgroundTurns {
  private readonly waiting: Array<{ consumer: object; go: () => void }> = [];
  private granted: { to: object; atMs: number } | undefined;
  /** While commits are under way, no background page goes before this time. */
  private notBeforeMs = 0;
  private scheduled = false;

  constructor(
    private readonly log: ClientCommits,
    private readonly now: () => number = () => performance.now(),
    /** The share of the time the turns' work may take while clients wait for the writer. */
    private readonly share = BACKGROUND_SHARE,
  ) {}

  /** Resolves when `consumer` may handle a page. */
  take(consumer: object): Promise<void> {
    this.finish(consumer);
    if (this.granted === undefined && this.waiting.length === 0 && this.log.commitWithClientsWaiting() === undefined) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiting.push({ consumer, go: resolve });
      this.schedule();
    });
  }

  /** The consumer's page is done (it asks for the next one, or stops reading): its time counts against the share. */
  finish(consumer: object): void {
    if (this.granted?.to !== consumer) return;
    const now = this.now();
    this.notBeforeMs = now + ((now - this.granted.atMs) * (1 - this.share)) / this.share;
    this.granted = undefined;
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.granted !== undefined || this.waiting.length === 0) return;
    this.scheduled = true;
    const commit = this.log.commitWithClientsWaiting();
    const owedMs = this.notBeforeMs - this.now();
    if (commit !== undefined && owedMs > 0) {
      setTimeout(() => {
        this.scheduled = false;
        this.schedule();
      }, owedMs);
      return;
    }
    if (commit === undefined) {
      queueMicrotask(() => this.grant());
      return;
    }
    void commitEndOrTimeout(commit).then(() => this.grant());
  }

  private grant(): void {
    this.scheduled = false;
    const next = this.waiting.shift();
    if (next === undefined) return;
    this.granted = { to: next.consumer, atMs: this.now() };
    next.go();
  }
}

export class LogConsumer {
  private state: ConsumerState = 'idle';
  private woken = false;
  private pagesHandled = 0;
  private error: string | undefined;
  private position: number;
  private readonly pageEventsMax: number;

  constructor(
    private readonly options: ConsumerOptions,
    private readonly log: ConsumerLog,
    private readonly logger: Logger,
    private readonly turns: BackgroundTurns,
  ) {
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
    } finally {
      if (this.options.background) this.turns.finish(this);
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
      if (this.options.background) await this.turns.take(this);
      if (this.state !== 'running') return;
      const read = this.options.readPage ?? ((position, maxCount, skip) => this.log.readAllForward(position, maxCount, skip));
      const page = await read(this.position, this.pageEventsMax, this.options.skipSystemStreams ?? false);
      if (this.state !== 'running') return;
      await this.options.handle(page);
      this.pagesHandled++;
      if (page.nextPosition <= this.position) return;
      this.position = page.nextPosition;
      // At the end it goes idle at once: no turn in between where it is at the end yet running.
      if (this.position >= this.log.readableEnd()) return;
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
  private readonly turns: BackgroundTurns;

  constructor(private readonly log: ConsumerLog, private readonly logger: Logger) {
    this.turns = new BackgroundTurns(log);
  }

  follow(options: ConsumerOptions): LogConsumer {
    // The storage logger as it is: its lines name the consumer, and a second `component`
    // binding would put the key twice on every line.
    const consumer = new LogConsumer(options, this.log, this.logger, this.turns);
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
