/**
 * The projections of a node: it loads them at start, creates, changes, commands and deletes them
 * for the HTTP routes, and checks who may do what. Each projection runs on its own
 * (projection.ts); this class keeps the registry and the definitions in their streams.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Errors } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { isAdmin } from '../security/stream-acl.js';
import { OPS_GROUP } from '../security/user-record.js';
import type { Principal, StreamAccess } from '../services/stream-access.js';
import { ChangeQueue } from '../../common/change-queue.js';
import { DefinitionError } from './definition.js';
import { JsProcessor } from './js-processor.js';
import { defaultConfig, updatedConfig, type ProjectionConfig, type ProjectionDefinition, type ProjectionMode } from './projection-config.js';
import { readEvents, type ReadEventsRequest, type ReadEventsStorage } from './read-events.js';
import { Projection, type ProjectionStorage, type ResultOutputs } from './projection.js';
import { ProjectionStore, type StoreStorage } from './projection-store.js';
import type { Processor } from './processor.js';
import { SandboxFault } from './sandbox.js';
import { ReadableStreams } from './readable-streams.js';
import { RunAsUsers, type RunAsUserStorage } from './run-as-users.js';
import { withSharedPages } from './shared-pages.js';
import { checkpointStreamOf, emittedStreamsStreamOf, orderStreamOf, resultStreamOf } from './streams.js';
import { checkSystemSource, isSystemProjection, SYSTEM_PROJECTIONS, SYSTEM_SOURCES, SystemProcessor } from './system-projections.js';

export type RunProjections = 'None' | 'System' | 'All';

export interface ProjectionsOptions {
  runProjections: RunProjections;
  startStandardProjections: boolean;
  projectionExecutionTimeout: number;
  projectionMemoryLimitMb: number;
}

export type ServiceStorage = ProjectionStorage & StoreStorage & ReadEventsStorage & RunAsUserStorage;

export interface CreateRequest {
  mode: ProjectionMode;
  name?: string;
  query: string;
  enabled: boolean;
  emit: boolean;
  checkpoints: boolean;
  trackEmittedStreams: boolean;
}

export interface DeleteRequest {
  deleteStateStream: boolean;
  deleteCheckpointStream: boolean;
  deleteEmittedStreams: boolean;
}

export type ProjectionCommand = 'enable' | 'disable' | 'reset' | 'abort';

const SYSTEM_HANDLER_TYPE = 'System';

/** An admin or an $ops user: may change projections, and reads their whole fault reasons. */
export function isOperator(principal: Principal | undefined): boolean {
  return isAdmin(principal) || principal?.groups.includes(OPS_GROUP) === true;
}

function requireOperator(principal: Principal | undefined, what: string): void {
  if (isOperator(principal)) return;
  if (principal === undefined) throw Errors.authRequired.create(what);
  throw Errors.accessDenied.create(`user ${principal.name}`, what, '$admins, $ops');
}

function requireUser(principal: Principal | undefined, what: string): void {
  if (principal === undefined) throw Errors.authRequired.create(what);
}

/** A name that is a path segment and part of stream names. */
function checkName(name: string): void {
  if (name === '' || name.length > 200 || /[/\\?#\s]/.test(name)) {
    throw Errors.projectionRequestInvalid.create('name must be 1 to 200 characters without spaces, /, \\, ? or #');
  }
}

export class ProjectionsService {
  private readonly projections = new Map<string, Projection>();
  private readonly store: ProjectionStore;
  /** Commands, query and config updates and deletes of one projection run one after the other. */
  private readonly changes = new ChangeQueue();
  /** What projections read and write through: one read of the log serves all that follow it together. */
  private readonly projectionStorage: ProjectionStorage;

  /** The users projections run as: a projection whose user loses its rights stops. */
  private readonly users: RunAsUsers | undefined;
  private readonly stopWatchingUsers: () => void;

  /**
   * @param access the stream rights a projection with a run-as user is held to; without it every
   * projection runs with the node's own rights (and no user is watched).
   */
  constructor(
    private readonly storage: ServiceStorage,
    private readonly options: ProjectionsOptions,
    private readonly logger: Logger,
    private readonly access?: StreamAccess,
  ) {
    this.store = new ProjectionStore(storage);
    this.projectionStorage = withSharedPages(storage);
    this.users = access ? new RunAsUsers(storage) : undefined;
    this.stopWatchingUsers = this.users?.onChange((login) => this.userChanged(login)) ?? (() => undefined);
  }

  /**
   * A user's record changed (groups, disabled, deleted): each projection running as that user
   * that no longer has the groups it was given faults now, before the change is acknowledged.
   */
  private userChanged(login: string): void {
    for (const projection of this.projections.values()) {
      const { runAs } = projection.definition;
      if (runAs?.name !== login) continue;
      try {
        const reason = this.users!.revoked(runAs);
        if (reason !== undefined) projection.revoke(reason);
      } catch (error) {
        this.logger.error({ err: error, projection: projection.name }, 'checking the rights of a projection\'s user failed');
      }
    }
  }

  /** Who a projection set up or changed by `principal` runs as from then on. */
  private runAsOf(principal: Principal | undefined): ProjectionDefinition['runAs'] {
    if (!principal) return null;
    return this.users?.runAsOf(principal) ?? { name: principal.name, roles: [...principal.groups] };
  }

  /** Loads every projection of the registry (creating the system ones on first start) and starts the enabled ones. */
  async start(): Promise<void> {
    await this.load(true);
  }

  /**
   * @param nodeStart the node is starting: --start-standard-projections enables the system
   * projections then, not when the subsystem restarts (a system projection disabled since stays so).
   */
  private async load(nodeStart: boolean): Promise<void> {
    const registry = this.store.registry();
    if (!registry.initialized) await this.store.initialize();
    const loaded = new Map<string, Projection>();
    for (const name of registry.names) {
      const definition = this.store.definition(name);
      if (definition) loaded.set(name, this.newProjection(definition));
    }
    for (const name of SYSTEM_PROJECTIONS) {
      if (loaded.has(name)) continue;
      const definition = this.systemDefinition(name);
      await this.store.create(definition);
      loaded.set(name, this.newProjection(definition));
    }
    // Swapped in at once: a listing during a restart shows the old projections or the new ones.
    this.projections.clear();
    for (const [name, projection] of loaded) this.projections.set(name, projection);
    for (const projection of loaded.values()) {
      const system = isSystemProjection(projection.name);
      if (nodeStart && system && this.options.startStandardProjections && !projection.definition.enabled) {
        projection.definition = { ...projection.definition, enabled: true, version: projection.definition.version + 1 };
        await this.store.save(projection.definition);
      }
      if (projection.definition.enabled && this.mayRun(projection.name)) await projection.start();
    }
  }

  async close(): Promise<void> {
    this.stopWatchingUsers();
    for (const projection of this.projections.values()) projection.interruptStart();
    await this.restarting;
    await this.changes.settled();
    // All at once: each may take up to the time a stop gives the page in hand.
    await Promise.all([...this.projections.values()].map(async (projection) => {
      await projection.stop('disable');
      projection.dispose();
    }));
    this.projections.clear();
    collectSandboxHandles();
  }

  /**
   * Restarts the subsystem: every projection stops (with a checkpoint), and the projections are
   * loaded again from their streams and the enabled ones started, as at a node start. Transient
   * projections are not stored and do not come back. Answers at once; commands wait for it.
   */
  restart(principal: Principal | undefined): void {
    requireOperator(principal, 'restart the projections subsystem');
    if (this.restarting !== undefined) return;
    this.restarting = this.restartAll().catch((error: unknown) => {
      this.logger.error({ err: error }, 'restarting the projections failed');
    }).finally(() => {
      this.restarting = undefined;
    });
  }

  private restarting: Promise<void> | undefined;

  private async restartAll(): Promise<void> {
    // The changes under way finish first; those that come meanwhile wait for the restart.
    await this.changes.settled();
    const stopping = [...this.projections.values()];
    for (const projection of stopping) await projection.stop('disable');
    for (const projection of stopping) projection.dispose();
    await this.load(false);
  }

  list(principal: Principal | undefined, modes: readonly ProjectionMode[]): Projection[] {
    requireUser(principal, 'list projections');
    return [...this.projections.values()].filter((projection) => modes.includes(projection.definition.mode));
  }

  get(principal: Principal | undefined, name: string): Projection {
    requireUser(principal, `read projection ${name}`);
    return this.existing(name);
  }

  async create(principal: Principal | undefined, request: CreateRequest): Promise<Projection> {
    requireOperator(principal, 'create projections');
    await this.restarting;
    if (this.options.runProjections !== 'All') throw Errors.projectionsUserDisabled.create();
    const name = request.name ?? crypto.randomUUID();
    checkName(name);
    if (this.projections.has(name) || isSystemProjection(name)) throw Errors.projectionConflict.create(name);
    const continuous = request.mode === 'Continuous';
    const transient = request.mode === 'Transient';
    const definition: ProjectionDefinition = {
      ...defaultConfig(this.options.projectionExecutionTimeout),
      name, mode: request.mode, handlerType: 'JS', query: request.query, enabled: request.enabled,
      emitEnabled: request.emit && !transient, trackEmittedStreams: request.emit && request.trackEmittedStreams && !transient,
      // A projection runs as the user who creates it: it may read and write what that user may, never more.
      checkpointsEnabled: continuous || (request.checkpoints && !transient), runAs: this.runAsOf(principal), epoch: this.firstEpochOf(name), version: 1,
    };
    // Compiled once before anything is stored: a source that cannot run is refused with its reason.
    (await this.compile(definition)).dispose();
    if (this.projections.has(name)) throw Errors.projectionConflict.create(name);
    const projection = this.newProjection(definition);
    this.projections.set(name, projection);
    projection.status = 'Creating';
    try {
      if (!transient) await this.store.create(definition);
    } catch (error) {
      this.projections.delete(name);
      throw error;
    }
    projection.status = 'Stopped';
    if (definition.enabled) await projection.start();
    return projection;
  }

  async updateQuery(principal: Principal | undefined, name: string, query: string, emit: boolean | undefined): Promise<void> {
    requireOperator(principal, `change the query of projection ${name}`);
    await this.restarting;
    await this.changes.run(name, () => this.changeQuery(principal, name, query, emit));
  }

  /**
   * A new source runs as the user who sent it: whoever changes a projection's code (or its emit
   * switch, or its config) answers for what it does, with that user's rights and never with the
   * rights of whoever set it up before (an $ops user would otherwise run code as an admin).
   */
  private async changeQuery(principal: Principal | undefined, name: string, query: string, emit: boolean | undefined): Promise<void> {
    const projection = this.existing(name);
    const wasRunning = this.isRunning(projection);
    const next = { ...projection.definition, query, runAs: this.runAsOf(principal), version: projection.definition.version + 1 };
    if (emit !== undefined) next.emitEnabled = emit;
    if (isSystemProjection(name)) checkSystemSource(name, query);
    else (await this.compile(next)).dispose();
    if (wasRunning) await projection.stop('disable');
    projection.definition = next;
    await this.persist(projection);
    if (wasRunning) await projection.start();
  }

  /**
   * A new projection's epoch: 0, or one past the last epoch of a deleted projection of the same
   * name, whose checkpoints and emitted events would otherwise be taken for the new one's.
   */
  private firstEpochOf(name: string): number {
    const retired = this.store.registry().retiredEpochs.get(name);
    return retired === undefined ? 0 : retired + 1;
  }

  config(principal: Principal | undefined, name: string): ProjectionDefinition {
    requireOperator(principal, `read the config of projection ${name}`);
    return this.existing(name).definition;
  }

  /** Applies a config sent as JSON text; checked for rights first, then for shape. */
  async updateConfig(principal: Principal | undefined, name: string, bodyText: string): Promise<void> {
    requireOperator(principal, `change the config of projection ${name}`);
    await this.restarting;
    await this.changes.run(name, () => this.changeConfig(principal, name, bodyText));
  }

  /** Like a new source, a new config runs as the user who sent it (see changeQuery). */
  private async changeConfig(principal: Principal | undefined, name: string, bodyText: string): Promise<void> {
    const projection = this.existing(name);
    let body: unknown;
    try {
      body = JSON.parse(bodyText);
    } catch {
      throw Errors.projectionConfigInvalid.create(name, 'the body is not JSON');
    }
    if (this.isRunning(projection)) throw Errors.projectionRunning.create(name, 'change its config');
    const config: ProjectionConfig = updatedConfig(name, projection.definition, body);
    projection.definition = { ...projection.definition, ...config, runAs: this.runAsOf(principal), version: projection.definition.version + 1 };
    await this.persist(projection);
  }

  async command(principal: Principal | undefined, name: string, command: ProjectionCommand, enableRunAs: boolean): Promise<void> {
    requireOperator(principal, `${command} projection ${name}`);
    // A start held up by its handlers would hold this stop up behind it.
    if (command === 'disable' || command === 'abort') this.projections.get(name)?.interruptStart();
    await this.restarting;
    await this.changes.run(name, () => this.runCommand(principal, name, command, enableRunAs));
  }

  private async runCommand(principal: Principal | undefined, name: string, command: ProjectionCommand, enableRunAs: boolean): Promise<void> {
    const projection = this.existing(name);
    const definition = { ...projection.definition, version: projection.definition.version + 1 };
    // The user who enables a projection is the one it runs as from then on; enableRunAs does the same for the other commands.
    if (enableRunAs || command === 'enable') definition.runAs = this.runAsOf(principal);
    if (command === 'enable') {
      if (!this.mayRun(name)) throw Errors.projectionsUserDisabled.create();
      definition.enabled = true;
    } else if (command === 'reset') {
      // A new epoch: what the projection emitted before is never taken for what it emits now.
      definition.epoch += 1;
      await projection.stop('abort');
    } else {
      definition.enabled = false;
      await projection.stop(command);
    }
    projection.definition = definition;
    await this.persist(projection);
    if (command === 'reset') await projection.reset();
    // A reset of an enabled projection starts it again, unless the node runs only the system projections.
    if (definition.enabled && (command === 'enable' || command === 'reset') && this.mayRun(name)) await projection.start();
  }

  /** Whether the node runs this projection: the system ones always, user ones with --run-projections All. */
  private mayRun(name: string): boolean {
    return isSystemProjection(name) || this.options.runProjections === 'All';
  }

  async delete(principal: Principal | undefined, name: string, request: DeleteRequest): Promise<void> {
    requireOperator(principal, `delete projection ${name}`);
    await this.restarting;
    await this.changes.run(name, () => this.deleteProjection(name, request));
  }

  private async deleteProjection(name: string, request: DeleteRequest): Promise<void> {
    const projection = this.existing(name);
    if (isSystemProjection(name)) throw Errors.projectionSystem.create(name);
    if (this.isRunning(projection)) throw Errors.projectionRunning.create(name, 'delete it');
    projection.dispose();
    if (projection.definition.mode === 'Transient') {
      this.projections.delete(name);
      return;
    }
    // Listed as Deleting until its streams are gone; then the name is free again.
    projection.status = 'Deleting';
    try {
      await this.store.delete(name, projection.definition.epoch);
      if (request.deleteCheckpointStream) {
        await this.store.deleteQuietly(checkpointStreamOf(name));
        await this.store.deleteQuietly(orderStreamOf(name));
      }
      if (request.deleteStateStream) await this.store.deleteQuietly(resultStreamOf(name));
      if (request.deleteEmittedStreams) {
        for (const streamName of projection.trackedStreams()) await this.store.deleteQuietly(streamName);
      }
      // The list of the streams it emitted to is the deleted projection's own: a new projection
      // of the name would take them for its own, and delete them with its deleteEmittedStreams.
      await this.store.deleteQuietly(emittedStreamsStreamOf(name));
    } finally {
      this.projections.delete(name);
    }
  }

  /**
   * What a query definition would be given from a position, as the caller may read it: its
   * sources need the caller's read right ($all for fromAll), and links are resolved only into
   * streams the caller may read.
   */
  readEvents(principal: Principal | undefined, request: ReadEventsRequest): Record<string, unknown> {
    requireOperator(principal, 'read events for a projection query');
    const { access } = this;
    if (!access) return readEvents(this.storage, request);
    const { selector } = request;
    for (const streamName of selector.all ? ['$all'] : selector.streams) access.check(principal, 'read', streamName);
    // requireOperator let no anonymous caller through.
    const readable = new ReadableStreams(access, principal!);
    return readEvents(this.storage, request, (streamName) => readable.has(streamName));
  }

  private isRunning(projection: Projection): boolean {
    return projection.busy;
  }

  private async persist(projection: Projection): Promise<void> {
    if (projection.definition.mode !== 'Transient') await this.store.save(projection.definition);
  }

  private existing(name: string): Projection {
    const projection = this.projections.get(name);
    if (!projection) throw Errors.projectionNotFound.create(name);
    return projection;
  }

  private systemDefinition(name: (typeof SYSTEM_PROJECTIONS)[number]): ProjectionDefinition {
    return {
      ...defaultConfig(this.options.projectionExecutionTimeout), name, mode: 'Continuous', handlerType: SYSTEM_HANDLER_TYPE,
      query: SYSTEM_SOURCES[name], enabled: false, emitEnabled: true, trackEmittedStreams: false, checkpointsEnabled: true,
      runAs: null, epoch: 0, version: 1,
    };
  }

  private newProjection(definition: ProjectionDefinition): Projection {
    return new Projection(definition, {
      storage: this.projectionStorage,
      logger: this.logger,
      createProcessor: (current) => this.processorFor(current),
      outputs: outputsOf,
      access: this.access,
      runAsRevoked: this.users && ((runAs) => this.users!.revoked(runAs)),
    });
  }

  private async processorFor(definition: ProjectionDefinition): Promise<Processor> {
    if (definition.handlerType === SYSTEM_HANDLER_TYPE && isSystemProjection(definition.name)) {
      return new SystemProcessor(definition.name, definition.query);
    }
    return JsProcessor.create(definition.query, this.limitsOf(definition), definition.emitEnabled);
  }

  /** Compiles a definition's source for a check; its faults become the coded 400 of a bad query. */
  private async compile(definition: ProjectionDefinition): Promise<Processor> {
    try {
      return await this.processorFor(definition);
    } catch (error) {
      if (error instanceof SandboxFault || error instanceof DefinitionError) throw Errors.projectionQueryInvalid.create(definition.name, error.message);
      throw error;
    }
  }

  private limitsOf(definition: ProjectionDefinition) {
    return { memoryLimitMb: this.options.projectionMemoryLimitMb, executionTimeoutMs: definition.projectionExecutionTimeout };
  }
}


function outputsOf(processor: Processor): ResultOutputs {
  if (!(processor instanceof JsProcessor)) return { outputState: false, rootState: false };
  const { definition } = processor;
  return {
    outputState: definition.outputState || definition.options.resultStreamName !== undefined,
    resultStreamName: definition.options.resultStreamName ?? definition.outputTo?.stream,
    partitionResultStreamPattern: definition.options.partitionResultStreamPattern ?? definition.outputTo?.partitionPattern ?? undefined,
    rootState: !processor.partitioned,
  };
}

/**
 * Runs a full garbage collection once every sandbox is disposed, so that the handles into the
 * disposed isolates are finalized now, while isolated-vm is still set up: one finalized while the
 * process exits, after isolated-vm's own teardown, aborts the process (an assertion in
 * IsolateEnvironment::GetCurrent).
 */
function collectSandboxHandles(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
}
