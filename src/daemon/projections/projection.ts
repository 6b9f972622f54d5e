/**
 * One projection at run time: it follows the log from its checkpoint, hands the events it
 * selects to its processor, writes what the processor emits and the results it outputs, and
 * checkpoints by its config's thresholds, always after those writes are durable. Whatever goes
 * wrong in the projection's code or its writes faults this projection alone, with the reason in
 * `stateReason`.
 */
import { Errors } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { Engine } from '../../storage/engine.js';
import type { LogConsumer, SystemStreamSkip } from '../../storage/read/log-consumers.js';
import type { AllPage } from '../../storage/read/reader.js';
import { eventNumberText, ExpectedVersion } from '../../storage/streams/stream-metadata.js';
import {
  CHECKPOINT_EVENT_TYPE, checkpointTooLargeReason, decodeCheckpoint, emptyCheckpoint, encodeCheckpoint, positionTag, positionText, queryDigest,
  type Checkpoint, type StreamPositions,
} from './checkpoint.js';
import { EventFlags } from '../../storage/log/record.js';
import { Emitter } from './emitter.js';
import type { ProjectionDefinition } from './projection-config.js';
import type { BatchOutput, Emit, Processor } from './processor.js';
import { selectEvents } from './select-events.js';
import { RunCounters, type RunStatistics } from './run-statistics.js';
import { ReorderBuffer } from './reorder-buffer.js';
import { SandboxTerminated } from './sandbox.js';
import { faultReason, ProjectionFault } from './projection-fault.js';
import { ReadableStreams } from './readable-streams.js';
import type { RunAs } from './projection-config.js';
import type { SourceEvent } from './source-event.js';
import type { StreamAccess } from '../services/stream-access.js';
import { checkpointStreamOf, emittedStreamsStreamOf, EventTypes, orderStreamOf, partitionResultStreamOf, partitionsStreamOf, resultStreamOf } from './streams.js';

const LINK_EVENT_TYPE = '$>';

export type ProjectionStorage = Pick<Engine, 'append' | 'readStreamBackward' | 'readStreamForward' | 'readEvent' | 'follow' | 'unfollow' | 'status'>;

/**
 * The wire note's states. A start goes Loading (checkpoint and tracked streams read), Loaded,
 * Preparing (the source compiled, the states restored), Prepared, Starting (following the log)
 * and Running; a disable goes Stopping and an abort Aborting until the page in hand and the writes
 * under way are done. Creating and Deleting are set by the service while the projection's streams
 * are written.
 */
export type RunStatus = 'Creating' | 'Loading' | 'Loaded' | 'Preparing' | 'Prepared' | 'Starting' | 'Running' | 'Stopping' | 'Aborting'
  | 'Stopped' | 'Completed' | 'Aborted' | 'Faulted' | 'Deleting';

/** The states in which a projection is on its way to running, or runs. */
const ACTIVE: ReadonlySet<RunStatus> = new Set(['Loading', 'Loaded', 'Preparing', 'Prepared', 'Starting', 'Running']);
/** The states of a start before the projection follows the log. */
const LOADING: ReadonlySet<RunStatus> = new Set(['Loading', 'Loaded', 'Preparing', 'Prepared']);
/** The states in which a command must wait: the projection is being started, stopped or written. */
const BUSY: ReadonlySet<RunStatus> = new Set([...ACTIVE, 'Stopping', 'Aborting', 'Creating', 'Deleting']);

/** How a processor is made for a definition; a source that does not compile rejects. */
export type ProcessorFactory = (definition: ProjectionDefinition) => Promise<Processor>;

export interface ProjectionDependencies {
  storage: ProjectionStorage;
  createProcessor: ProcessorFactory;
  logger: Logger;
  /** Where the processor's outputs go: results only when it outputs state. */
  outputs: (processor: Processor) => ResultOutputs;
  /** Holds a projection with a run-as user to that user's stream rights. */
  access?: StreamAccess;
  /** Why the run-as user may no longer lend the projection its rights (lost a group, deleted), if so. */
  runAsRevoked?: (runAs: RunAs) => string | undefined;
}

export interface ResultOutputs {
  outputState: boolean;
  resultStreamName?: string;
  partitionResultStreamPattern?: string;
  /** Needs a root state ($init) before any event. */
  rootState: boolean;
}

const PAGE_EVENTS_MAX = 1000;
/** Longer delays overflow Node's timers (which then fire at once); a longer lag wakes up and waits again. */
const TIMER_DELAY_MAX_MS = 2_147_483_647;
/**
 * Pages whose writes may be under way while the next pages are processed. The writer keeps them
 * in order, so each target stream still gets its events in order; a checkpoint waits for all.
 * The writer takes all that wait into one commit: with more pages under way, a projection that
 * emits for every event (the system projections) is held up less by each commit's fsyncs.
 * Measured with $by_category over 300k events, 10 paired trials: 32 pages processed 1.15x the
 * events/s of 8 (faster in every trial); its links under way then take some 7 MiB.
 */
const PAGES_WRITING_MAX = 32;
/**
 * How long a disable (or the node's shutdown) lets the page in hand finish before the handlers
 * are cut off: its execution timeout may have been raised to minutes, or a handler may loop
 * under it. What is cut off was not checkpointed and is handled again at the next start.
 */
const STOP_PAGE_WAIT_MS = 1000;

export class Projection {
  status: RunStatus = 'Stopped';
  /** Why it faulted, whole: for operators and the log (see publicReason). */
  stateReason = '';
  /** Why it faulted, for users who are not operators: internal detail (paths, say) left out. */
  publicReason = '';
  eventsProcessedAfterRestart = 0;
  private processor: Processor | undefined;
  private consumer: LogConsumer | undefined;
  private emitter: Emitter | undefined;
  private outputs: ResultOutputs = { outputState: false, rootState: false };
  private inFlight: Promise<void> = Promise.resolve();
  private readonly writing: Array<Promise<void>> = [];
  private writeError: Error | undefined;
  private checkpoint: Checkpoint;
  private readonly states = new Map<string, string | null>();
  private readonly results = new Map<string, string | null>();
  private shared: string | null = null;
  private readonly tracked = new Set<string>();
  private handledSinceCheckpoint = 0;
  private unhandledBytes = 0;
  private lastCheckpointMs = 0;
  private endPosition = Number.POSITIVE_INFINITY;

  constructor(public definition: ProjectionDefinition, private readonly deps: ProjectionDependencies) {
    this.checkpoint = emptyCheckpoint(definition.epoch);
  }

  get name(): string {
    return this.definition.name;
  }

  /**
   * `next`: the log position up to which everything is processed and its writes are durable (what
   * progress and waiting for a projection go by); `last`: the position of the last event processed.
   */
  get positions(): { next: number; last: number } {
    return { next: this.writtenPosition, last: this.checkpoint.lastPosition };
  }

  private writtenPosition = 0;
  private lastWrite: Promise<unknown> = Promise.resolve();

  /** The position of the last event processed, as the listings show it and as the position header tags it. */
  get position(): { text: string; tag: string } {
    const streams = this.streamPositions;
    return { text: positionText(this.checkpoint.lastPosition, streams), tag: positionTag(this.checkpoint.lastPosition, streams) };
  }

  /** The position of the last durable checkpoint, as the listings show it. */
  get lastCheckpointText(): string {
    return positionText(this.lastCheckpointTag, this.lastCheckpointStreams);
  }

  private lastCheckpointTag = -1;
  /** For a projection of named streams: the last event number handled in each, and at the last checkpoint. */
  private streamPositions: StreamPositions | undefined;
  private lastCheckpointStreams: StreamPositions | undefined;

  /** Partitions whose state is held. */
  get partitionCount(): number {
    return this.states.size;
  }

  /** Whether the projection writes its state to a result stream, and which one for the root partition. */
  get resultStream(): string | undefined {
    return this.outputs.outputState ? this.resultStreamFor('') : undefined;
  }

  state(partition: string): string | null | undefined {
    return this.states.get(partition);
  }

  result(partition: string): string | null | undefined {
    return this.outputs.outputState ? this.results.get(partition) : this.states.get(partition);
  }

  heapBytes(): number {
    return this.processor?.heapBytes() ?? 0;
  }

  private readonly counters = new RunCounters();

  statistics(): RunStatistics {
    return this.counters.snapshot(this.writing.length);
  }

  /** Whether its handlers are running a batch now. */
  get handling(): boolean {
    return this.handlingBatch;
  }

  private handlingBatch = false;

  /** Starting, running, or being stopped, created or deleted: not to be changed now. */
  get busy(): boolean {
    return BUSY.has(this.status);
  }

  /** Loads the checkpoint, compiles the source and follows the log. A fault is recorded, never thrown. */
  async start(): Promise<void> {
    if (ACTIVE.has(this.status)) return;
    this.status = 'Loading';
    this.stateReason = '';
    this.publicReason = '';
    this.writeError = undefined;
    this.counters.reset();
    this.starting = this.load();
    try {
      await this.starting;
    } catch (error) {
      // A stop while loading wins over what loading then ran into.
      if (ACTIVE.has(this.status)) this.fault(error);
      return;
    }
    // Read again: a stop or a fault may have come while loading.
    if ((this.status as RunStatus) !== 'Prepared') return;
    if (this.completedBefore()) {
      this.readResults();
      this.status = 'Completed';
      return;
    }
    this.status = 'Starting';
    const { storage } = this.deps;
    const logEnd = storage.status().readableEnd;
    this.emitter = new Emitter(storage, this.name, this.definition.epoch, logEnd, this.checkpoint.nextPosition);
    this.endPosition = this.definition.mode === 'Continuous' ? Number.POSITIVE_INFINITY : logEnd;
    if (this.checkpoint.nextPosition >= this.endPosition) {
      await this.complete();
      return;
    }
    this.consumer = storage.follow({
      name: `projection ${this.name}`, fromPosition: this.checkpoint.nextPosition, pageEventsMax: PAGE_EVENTS_MAX,
      // fromAll is never given events of system streams, its own links and checkpoints among them;
      // those of metadata streams are read when it wants deletions (a soft delete is metadata).
      skipSystemStreams: this.systemStreamSkip(),
      handle: (page) => this.handlePage(page),
      // Projections are background work: under a heavy write load they fall behind and catch up after it.
      background: true,
    });
    this.status = 'Running';
  }

  private starting: Promise<void> = Promise.resolve();

  private systemStreamSkip(): SystemStreamSkip {
    const selects = this.processor?.selects;
    if (selects?.all !== true) return false;
    return selects.deletions ? 'butMetadata' : true;
  }

  private async load(): Promise<void> {
    const checkpoint = this.definition.checkpointsEnabled ? this.readCheckpoint() : undefined;
    this.checkpoint = checkpoint ?? emptyCheckpoint(this.definition.epoch);
    this.lastCheckpointTag = this.checkpoint.lastPosition;
    this.writtenPosition = this.checkpoint.nextPosition;
    this.lastWrite = Promise.resolve();
    this.states.clear();
    this.results.clear();
    for (const [partition, state] of Object.entries(this.checkpoint.states)) this.states.set(partition, state);
    this.shared = this.checkpoint.shared;
    this.readTracked();
    this.checkRunAsUser();
    // The run-as user may have changed (an enable sets it) and so may that user's rights.
    this.writable.clear();
    const { runAs } = this.definition;
    this.readable = runAs && this.deps.access ? new ReadableStreams(this.deps.access, { name: runAs.name, groups: runAs.roles }) : undefined;
    this.status = 'Loaded';
    this.status = 'Preparing';
    this.processor?.dispose();
    this.processor = await this.deps.createProcessor(this.definition);
    this.outputs = this.deps.outputs(this.processor);
    this.streamPositions = this.startingStreamPositions(this.checkpoint.streams);
    this.lastCheckpointStreams = this.startingStreamPositions(checkpoint?.streams);
    const lagMs = this.processor.reorderLagMs;
    this.reorder = lagMs === undefined ? undefined : new ReorderBuffer(lagMs);
    this.readEnd = this.checkpoint.nextPosition;
    this.checkReads(this.processor);
    const processor = this.processor;
    // $init and $initShared are the projection's code: a stop may have to cut them off too.
    await this.inHandlers(() => processor.restore({ states: this.checkpoint.states, shared: this.checkpoint.shared }));
    if (this.outputs.rootState && !this.states.has('')) {
      const first = await this.inHandlers(() => processor.process([]));
      this.applyChanges(first);
    }
    this.lastCheckpointMs = Date.now();
    if (this.status === 'Preparing') this.status = 'Prepared';
  }

  /** Every source stream at -1, then what the checkpoint says; undefined for fromAll. */
  private startingStreamPositions(checkpointed: StreamPositions | undefined): StreamPositions | undefined {
    const selects = this.processor?.selects;
    if (!selects || selects.all) return undefined;
    const positions: StreamPositions = Object.fromEntries([...selects.streams].map((stream) => [stream, -1]));
    for (const [stream, number] of Object.entries(checkpointed ?? {})) if (stream in positions) positions[stream] = number;
    return positions;
  }

  /** The event (or the link it came through) each handled event stands at in its source stream. */
  private noteStreamPositions(events: readonly SourceEvent[]): void {
    const positions = this.streamPositions;
    if (!positions) return;
    for (const { event, link } of events) {
      const at = link ?? event;
      if (at.streamName in positions && (at.flags & EventFlags.streamDelete) === 0) positions[at.streamName] = at.eventNumber;
    }
  }

  /** With a run-as user, the sources must be readable by that user ($all for fromAll and categories). */
  private checkReads(processor: Processor): void {
    const { selects } = processor;
    const streams = selects.all ? ['$all'] : [...selects.streams];
    for (const streamName of streams) this.checkRunAs('read', streamName);
  }

  /**
   * With a run-as user, every stream the code chose to write to must be writable by that user.
   * Checked before any write of the batch starts: a refused stream faults the projection with
   * nothing of the batch written, and no checkpoint moves past it.
   */
  private checkWrites(streamNames: Iterable<string>): void {
    for (const streamName of streamNames) {
      if (this.writable.has(streamName)) continue;
      this.checkRunAs('write', streamName);
      this.writable.add(streamName);
    }
  }

  /** The run-as user still has the groups the projection was given; it faults otherwise. */
  private checkRunAsUser(): void {
    const { runAs } = this.definition;
    const reason = runAs ? this.deps.runAsRevoked?.(runAs) : undefined;
    if (reason !== undefined) throw new ProjectionFault(reason);
  }

  /** The run-as user lost rights the projection was given: a projection on its way to running, or running, faults. */
  revoke(reason: string): void {
    if (ACTIVE.has(this.status)) this.fault(new ProjectionFault(reason));
  }

  /** The streams the run-as user may read, for links; made at each start (the run-as user may have changed). */
  private readable: ReadableStreams | undefined;

  /** Whether the projection runs as a user whose stream rights it is held to. */
  private heldToRunAs(): boolean {
    return this.definition.runAs !== null && this.deps.access !== undefined;
  }

  /** Throws, with a reason that says whose rights the projection has, when its run-as user may not do this. */
  private checkRunAs(operation: 'read' | 'write', streamName: string): void {
    const { runAs } = this.definition;
    if (!runAs || !this.deps.access) return;
    try {
      this.deps.access.check({ name: runAs.name, groups: runAs.roles }, operation, streamName);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ProjectionFault(`the projection runs as user ${runAs.name} and has that user's stream rights: ${reason}`);
    }
  }

  /** The streams of a batch's writes that the code chose: those it emits to, and the result streams it named. */
  private streamsChosenByCode(output: BatchOutput): Set<string> {
    const streams = new Set(output.emits.map((emit) => emit.streamName));
    if (!this.outputs.outputState) return streams;
    for (const change of output.changes) {
      const named = change.partition === '' ? this.outputs.resultStreamName : this.outputs.partitionResultStreamPattern;
      if (named !== undefined && change.result !== null) streams.add(this.resultStreamFor(change.partition));
    }
    return streams;
  }

  /** Streams the run-as user was found to be allowed to write, since the start. */
  private readonly writable = new Set<string>();

  private readCheckpoint(): Checkpoint | undefined {
    const page = this.deps.storage.readStreamBackward(checkpointStreamOf(this.name), -1, 1);
    const checkpoint = page.events.length > 0 ? decodeCheckpoint(page.events[0]) : undefined;
    return checkpoint?.epoch === this.definition.epoch ? checkpoint : undefined;
  }

  private readTracked(): void {
    this.tracked.clear();
    if (!this.definition.trackEmittedStreams) return;
    const stream = emittedStreamsStreamOf(this.name);
    for (let from = 0; ;) {
      const page = this.deps.storage.readStreamForward(stream, from, 1000);
      for (const event of page.events) this.tracked.add(streamIdOf(event.data.toString('utf8')));
      if (page.isEndOfStream || page.events.length === 0) return;
      from = page.nextEventNumber;
    }
  }

  /** Stops following the log once the page in hand is done; a disable checkpoints, an abort does not. */
  async stop(how: 'disable' | 'abort'): Promise<void> {
    const wasRunning = this.status === 'Running';
    if (ACTIVE.has(this.status)) this.status = how === 'abort' ? 'Aborting' : 'Stopping';
    this.unfollow();
    await this.finishPageInHand(how);
    await Promise.all(this.writing);
    if (wasRunning && how === 'disable' && this.definition.checkpointsEnabled) {
      try {
        await this.writeCheckpoint();
        await this.settleWrites();
      } catch (error) {
        this.fault(error);
        return;
      }
    }
    this.status = how === 'abort' ? 'Aborted' : 'Stopped';
    this.stateReason = '';
    this.publicReason = '';
  }

  /**
   * Waits for a start under way and the page in hand: a disable for a bounded time, an abort not
   * at all. Handlers still running then are ended by tearing their isolate down; their page is
   * not applied or checkpointed.
   */
  private async finishPageInHand(how: 'disable' | 'abort'): Promise<void> {
    const settled = Promise.all([this.starting.catch(() => undefined), this.inFlight]);
    if (how === 'disable') {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, STOP_PAGE_WAIT_MS);
      });
      await Promise.race([settled, waited]);
      clearTimeout(timer);
    }
    if (this.handlingBatch) this.processor?.terminate();
    await settled;
  }

  /**
   * Cuts off handlers that run while the projection starts ($init, $initShared): the start is
   * awaited by the command that began it, and the stop that is coming waits behind that command.
   */
  interruptStart(): void {
    if (LOADING.has(this.status) && this.handlingBatch) this.processor?.terminate();
  }

  /** Runs a call into the projection's handlers, marked so that a stop can cut it off. */
  private async inHandlers<T>(call: () => Promise<T>): Promise<T> {
    this.handlingBatch = true;
    try {
      return await call();
    } finally {
      this.handlingBatch = false;
    }
  }

  /** Forgets every state and the checkpoint; the next start processes the log from its beginning. */
  async reset(): Promise<void> {
    await this.stop('abort');
    this.checkpoint = emptyCheckpoint(this.definition.epoch);
    this.lastCheckpointTag = -1;
    this.streamPositions = this.startingStreamPositions(undefined);
    this.lastCheckpointStreams = this.streamPositions && { ...this.streamPositions };
    this.writtenPosition = 0;
    this.states.clear();
    this.results.clear();
    this.shared = null;
    this.eventsProcessedAfterRestart = 0;
    if (this.definition.checkpointsEnabled) {
      await this.writeCheckpoint();
      await this.settleWrites();
    }
    this.status = 'Stopped';
  }

  /** Releases the isolate; the projection is gone from the node. */
  dispose(): void {
    this.unfollow();
    this.processor?.dispose();
    this.processor = undefined;
  }

  private unfollow(): void {
    if (this.consumer) this.deps.storage.unfollow(this.consumer);
    this.consumer = undefined;
    this.stopReordering();
  }

  /**
   * Pages are processed one after the other, but the consumer may read the next page while this
   * one is processed (a user projection's handlers run on the isolate's thread): it is told the
   * page before this one is done, so it reads one page ahead at most.
   */
  private handlePage(page: AllPage): Promise<void> {
    const previous = this.inFlight;
    const read = page.events.length;
    this.counters.pageRead(read);
    this.inFlight = previous.then(() => {
      this.counters.pageTaken(read);
      return this.processPage(page);
    }).catch((error: unknown) => this.fault(error));
    return previous;
  }

  private async processPage(page: AllPage): Promise<void> {
    if (this.status !== 'Running' || !this.processor || !this.emitter) return;
    // Links are resolved with the run-as user's rights: a link into a stream it may not read points at nothing.
    const readable = this.readable;
    const mayRead = readable ? (streamName: string) => readable.has(streamName) : undefined;
    const events = selectEvents(this.processor.selects, this.deps.storage, page.events, this.endPosition, mayRead);
    const readEnd = Math.min(page.nextPosition, this.endPosition);
    if (!this.reorder) {
      await this.handleEvents(events, readEnd);
      return;
    }
    this.reorder.add(events, Date.now());
    this.readEnd = readEnd;
    await this.handleDue();
  }

  /** With reorderEvents: events held until their lag is over, and where reading resumes meanwhile. */
  private reorder: ReorderBuffer | undefined;
  private readEnd = 0;
  private reorderTimer: NodeJS.Timeout | undefined;

  /**
   * Hands over the held events that are due (all of them once a one-time projection has read to
   * its end), and wakes up again when the next one is.
   */
  private async handleDue(): Promise<void> {
    const buffer = this.reorder!;
    const events = buffer.take(Date.now(), this.readEnd >= this.endPosition, this.definition.pendingEventsThreshold);
    this.counters.held = buffer.size;
    await this.handleEvents(events, buffer.firstPosition ?? this.readEnd);
    const dueIn = buffer.dueInMs(Date.now());
    if (dueIn === undefined || this.reorderTimer !== undefined || this.status !== 'Running') return;
    this.reorderTimer = setTimeout(() => {
      this.reorderTimer = undefined;
      this.inFlight = this.inFlight.then(() => (this.status === 'Running' ? this.handleDue() : undefined)).catch((error: unknown) => this.fault(error));
    }, Math.min(dueIn, TIMER_DELAY_MAX_MS));
  }

  private stopReordering(): void {
    clearTimeout(this.reorderTimer);
    this.reorderTimer = undefined;
    this.reorder?.clear();
    this.counters.held = 0;
  }

  /** `nextPosition`: where reading resumes once these events are handled (a checkpoint records it). */
  private async handleEvents(events: readonly SourceEvent[], nextPosition: number): Promise<void> {
    const { processor } = this;
    if (!processor) return;
    if (events.length > 0) {
      const startedMs = performance.now();
      const output = await this.inHandlers(() => processor.process(events));
      // Faulted meanwhile (its user lost its rights, a write failed): nothing of this batch is written.
      if (this.status === 'Faulted') return;
      this.counters.processed(performance.now() - startedMs);
      for (const message of output.logs) this.deps.logger.info({ projection: this.name, message }, 'projection log');
      const emits = this.outputEvents(events, output);
      if (this.heldToRunAs()) this.checkWrites(this.streamsChosenByCode(output));
      this.startWrites(this.writeOutputs(events, output.emits, emits), emits.length);
      this.applyChanges(output);
      this.checkpoint.lastPosition = events[events.length - 1].position;
      this.noteStreamPositions(events);
      this.eventsProcessedAfterRestart += events.length;
      this.handledSinceCheckpoint += events.length;
    } else {
      this.unhandledBytes += nextPosition - this.checkpoint.nextPosition;
    }
    this.checkpoint.nextPosition = nextPosition;
    this.lastWrite = this.lastWrite.then(() => {
      this.writtenPosition = Math.max(this.writtenPosition, nextPosition);
    });
    if (nextPosition >= this.endPosition) {
      await this.complete();
      return;
    }
    if (this.checkpointDue()) await this.writeCheckpoint();
    else await this.throttleWrites();
  }

  /** `events`: how many events the writes hold, for statistics. */
  private startWrites(writes: Promise<void>, events: number): void {
    this.lastWrite = Promise.all([this.lastWrite, writes.catch(() => undefined)]);
    const done = this.counters.writeStarted(events);
    const tracked: Promise<void> = writes.finally(done).catch((error: unknown) => {
      this.writeError ??= error instanceof Error ? error : new Error(String(error));
      // No page may come to notice it: the failure faults the projection now.
      if (this.status === 'Running') this.fault(this.writeError);
    }).finally(() => {
      void this.writing.splice(this.writing.indexOf(tracked), 1);
    });
    this.writing.push(tracked);
  }

  /** Waits for the oldest pages' writes when too many are under way; a failed write faults the projection. */
  private async throttleWrites(): Promise<void> {
    while (this.writing.length > PAGES_WRITING_MAX) await this.writing[0];
    this.throwWriteError();
  }

  /** Every write started so far is durable, or the first failure is thrown. */
  private async settleWrites(): Promise<void> {
    await Promise.all(this.writing);
    this.throwWriteError();
  }

  private throwWriteError(): void {
    if (this.writeError !== undefined) throw this.writeError;
  }

  private applyChanges(output: BatchOutput): void {
    for (const change of output.changes) {
      this.states.set(change.partition, change.state);
      this.results.set(change.partition, change.result);
    }
    if (output.shared !== undefined) this.shared = output.shared;
  }

  private checkpointDue(): boolean {
    if (!this.definition.checkpointsEnabled) return false;
    const { checkpointHandledThreshold, checkpointUnhandledBytesThreshold, checkpointAfterMs } = this.definition;
    const due = this.handledSinceCheckpoint >= checkpointHandledThreshold || this.unhandledBytes >= checkpointUnhandledBytesThreshold;
    return due && Date.now() - this.lastCheckpointMs >= checkpointAfterMs;
  }

  /** What the code emitted, with the results and the new partitions of the batch. */
  private outputEvents(events: readonly SourceEvent[], output: BatchOutput): Emit[] {
    let emits = output.emits;
    const last = events.length - 1;
    if (this.reorder) emits = [...output.emits, ...orderLinks(this.name, events)];
    for (const change of output.changes) {
      const newPartition = !this.states.has(change.partition) && change.partition !== '';
      const result = this.outputs.outputState && change.result !== null;
      if (!newPartition && !result) continue;
      if (emits === output.emits) emits = [...output.emits];
      if (newPartition) emits.push({ sourceIndex: last, streamName: partitionsStreamOf(this.name), eventType: EventTypes.partition, data: change.partition, metadata: '', isJson: false });
      if (result) emits.push({ sourceIndex: last, streamName: this.resultStreamFor(change.partition), eventType: EventTypes.result, data: change.result!, metadata: '', isJson: true });
    }
    return emits;
  }

  /** Emitted events, results, new partitions and tracked streams; all durable before this returns. */
  private async writeOutputs(events: readonly SourceEvent[], coded: readonly Emit[], emits: Emit[]): Promise<void> {
    const track = this.definition.trackEmittedStreams && this.definition.emitEnabled;
    const emitted = track ? new Set(coded.map((emit) => emit.streamName)) : undefined;
    const newStreams: string[] = [];
    const writes = this.emitter!.write(emits, events, track ? (streamName) => {
      if (!emitted!.has(streamName) || this.tracked.has(streamName)) return;
      // Marked at once: the next page, processed while this one writes, must not track it again.
      this.tracked.add(streamName);
      newStreams.push(streamName);
    } : undefined);
    return Promise.all([writes, newStreams.length > 0 ? this.trackStreams(newStreams) : undefined]).then(() => undefined);
  }

  private async trackStreams(streamNames: string[]): Promise<void> {
    await this.deps.storage.append(emittedStreamsStreamOf(this.name), ExpectedVersion.any, streamNames.map((streamName) => ({
      eventId: crypto.randomUUID(), eventType: EventTypes.streamTracked, data: Buffer.from(JSON.stringify({ streamId: streamName })),
      metadata: Buffer.alloc(0), isJson: true,
    })));
  }

  /**
   * The streams emitted to and tracked, for DELETE with deleteEmittedStreams: read from their
   * stream, since a projection not started since the node started has not read them.
   */
  trackedStreams(): string[] {
    this.readTracked();
    return [...this.tracked];
  }

  private resultStreamFor(partition: string): string {
    if (partition === '') return this.outputs.resultStreamName ?? resultStreamOf(this.name);
    const pattern = this.outputs.partitionResultStreamPattern;
    return pattern ? pattern.replaceAll('{0}', partition) : partitionResultStreamOf(this.name, partition);
  }

  /**
   * Queued after the writes of the pages it covers, without waiting for them: the writer commits
   * in queue order, so the checkpoint is never durable before those writes are, and a restart
   * never skips an emit. (A write the writer refuses faults the projection.)
   */
  private async writeCheckpoint(): Promise<void> {
    this.throwWriteError();
    const streams = this.streamPositions ? { ...this.streamPositions } : undefined;
    const checkpoint: Checkpoint = { ...this.checkpoint, epoch: this.definition.epoch, states: Object.fromEntries(this.states), shared: this.shared, streams };
    const { data, metadata } = encodeCheckpoint(checkpoint);
    const written = this.deps.storage.append(checkpointStreamOf(this.name), ExpectedVersion.any, [
      { eventId: crypto.randomUUID(), eventType: CHECKPOINT_EVENT_TYPE, data, metadata, isJson: true },
    ], { followUp: true }).catch((error: unknown) => {
      if (!Errors.eventTooLarge.is(error)) throw error;
      throw new ProjectionFault(checkpointTooLargeReason(this.name, checkpoint, data.length));
    }).then(() => {
      this.lastCheckpointTag = checkpoint.lastPosition;
      this.lastCheckpointStreams = streams;
    });
    this.startWrites(written.finally(this.counters.checkpointStarted()), 0);
    this.handledSinceCheckpoint = 0;
    this.unhandledBytes = 0;
    this.lastCheckpointMs = Date.now();
    await this.throttleWrites();
  }

  /**
   * A one-time query that completed is not run again at its next start (a node restart, an
   * enable): it ran over the log as it was, and more events would change its result.
   */
  private completedBefore(): boolean {
    return this.definition.mode === 'OneTime' && this.checkpoint.completedQuery === queryDigest(this.definition.query);
  }

  /** A completed query's results, from its result streams: its checkpoint holds only the states. */
  private readResults(): void {
    if (!this.outputs.outputState) return;
    for (const partition of this.states.keys()) {
      const last = this.deps.storage.readStreamBackward(this.resultStreamFor(partition), -1, 1).events[0];
      if (last?.eventType === EventTypes.result) this.results.set(partition, last.data.toString('utf8'));
    }
  }

  private async complete(): Promise<void> {
    this.unfollow();
    await this.settleWrites();
    if (this.definition.mode === 'OneTime') this.checkpoint.completedQuery = queryDigest(this.definition.query);
    if (this.definition.checkpointsEnabled) await this.writeCheckpoint();
    await this.settleWrites();
    this.status = 'Completed';
  }

  private fault(error: unknown): void {
    // The first reason stays: what fails after it (a page in hand, a write under way) follows from it.
    if (this.status === 'Faulted') return;
    // Handlers cut off by a stop under way: the stop goes on, nothing went wrong. (Cut off
    // before the stop came, while starting, the projection faults until the stop sets its status.)
    if (error instanceof SandboxTerminated && !ACTIVE.has(this.status)) return;
    this.unfollow();
    this.status = 'Faulted';
    const reason = faultReason(error);
    this.stateReason = reason.full;
    this.publicReason = reason.public;
    this.deps.logger.warn({ projection: this.name, reason: this.stateReason }, 'projection faulted');
    this.processor?.dispose();
    this.processor = undefined;
  }
}

/**
 * The order stream's links, one per event handed over, in that order; the emitter adds the
 * event's position to each link's metadata ($c, $p) as to every emitted event.
 */
function orderLinks(name: string, events: readonly SourceEvent[]): Emit[] {
  const streamName = orderStreamOf(name);
  return events.map(({ event }, sourceIndex) => ({
    sourceIndex, streamName, eventType: LINK_EVENT_TYPE, data: `${eventNumberText(event.eventNumber)}@${event.streamName}`, metadata: '', isJson: false,
  }));
}

function streamIdOf(data: string): string {
  try {
    const parsed = JSON.parse(data) as { streamId?: unknown };
    return typeof parsed.streamId === 'string' ? parsed.streamId : data;
  } catch {
    return data;
  }
}
