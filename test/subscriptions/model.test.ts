// A model-based test of a subscription group (fast-check): random appends, takes by two
// consumers, acks, nacks (Park, Retry, Skip), the passing of time on an injected clock (message
// timeouts, timed checkpoints) and restarts of the engine and the service, against a model of
// at-least-once delivery. After every step: no message is out to two consumers at once, nothing
// handled is delivered again before a restart, retry counts and parking follow maxRetryCount,
// and a restart's checkpoint never passes a message that was not handled. At the end, every event
// was handled or parked: nothing is lost. Runs come from the printed seed.
import fc from 'fast-check';
import pino from 'pino';
import t, { type Test } from 'tap';
import { startSecurity, DEFAULT_SECURITY_LIMITS } from '../../src/daemon/security/security.js';
import { StreamsService } from '../../src/daemon/services/streams.js';
import type { Principal } from '../../src/daemon/services/stream-access.js';
import type { NackAction } from '../../src/daemon/subscriptions/group.js';
import { checkpointStreamOf, parkedStreamOf } from '../../src/daemon/subscriptions/names.js';
import { SubscriptionsService } from '../../src/daemon/subscriptions/service.js';
import { SystemStreams } from '../../src/daemon/subscriptions/system-streams.js';
import type { Engine } from '../../src/storage/engine.js';
import { newEvents, openEngine, tempDirectory } from '../helpers/engine.js';
import { testSeed } from '../helpers/random.js';

const STREAM = 'orders';
const GROUP = 'model';
const TIMEOUT_MS = 1000;
const MAX_RETRY_COUNT = 2;
const ADMIN: Principal = { name: 'admin', groups: ['$admins'] };
const CONSUMERS = ['a', 'b'] as const;
const silent = pino({ level: 'silent' });

interface Model {
  appended: number;
  /** Event number → consumer holding it, with the deadline and its retry count. */
  inFlight: Map<number, { consumer: string; deadlineMs: number; retryCount: number }>;
  /** Retry counts of messages waiting to be delivered again. */
  retryCounts: Map<number, number>;
  /** Handled since the last restart: must not come again before the next one. */
  handled: Set<number>;
  /** Handled at any time (acked, skipped or parked): for the final check. */
  everHandled: Set<number>;
  parked: Set<number>;
  nowMs: number;
}

class Real {
  engine!: Engine;
  service!: SubscriptionsService;
  private closeSecurity!: () => Promise<void>;
  ids = new Map<number, string>();
  private isOpen = false;

  constructor(private readonly directory: string, private readonly clock: { nowMs: number }) {}

  async open(): Promise<void> {
    this.engine = await openEngine(this.directory);
    const security = await startSecurity(this.engine, { admin: 'changeit', ops: 'changeit' }, silent, DEFAULT_SECURITY_LIMITS);
    this.closeSecurity = () => security.close();
    const streams = new StreamsService(this.engine, security.access);
    this.service = new SubscriptionsService({
      system: new SystemStreams(streams), access: security.access, follow: (options) => this.engine.follow(options),
      logger: silent, now: () => this.clock.nowMs, tickIntervalMs: 0,
    });
    this.service.start();
    this.isOpen = true;
  }

  /** Stops the service (it writes its checkpoint), then the storage; returns the durable checkpoint. */
  async close(): Promise<number> {
    if (!this.isOpen) return -1;
    this.isOpen = false;
    await this.service.close();
    const checkpoint = this.durableCheckpoint() ?? -1;
    await this.closeSecurity();
    await this.engine.close();
    return checkpoint;
  }

  group() {
    return this.service.get(STREAM, GROUP);
  }

  /** The checkpoint as the checkpoint stream holds it. */
  durableCheckpoint(): number | undefined {
    const read = this.engine.readEvent(checkpointStreamOf(STREAM, GROUP), -1);
    return read.event === undefined ? undefined : Number(JSON.parse(read.event.data.toString('utf8')));
  }

  parkedNumbers(): number[] {
    const page = this.engine.readStreamForward(parkedStreamOf(STREAM, GROUP), 0, 4096);
    return page.events.map((event) => Number(event.data.toString('utf8').split('@')[0]));
  }
}

type Command = fc.AsyncCommand<Model, Real>;

function identity(consumer: string) {
  return { key: consumer, from: 'model', username: 'admin', connectionName: consumer };
}

/** A retried message: delivered again, or parked once it was retried MAX_RETRY_COUNT times. */
function retried(model: Model, eventNumber: number, retryCount: number): void {
  if (retryCount >= MAX_RETRY_COUNT) {
    model.parked.add(eventNumber);
    model.handled.add(eventNumber);
    model.everHandled.add(eventNumber);
  } else {
    model.retryCounts.set(eventNumber, retryCount + 1);
  }
}

class Append implements Command {
  constructor(readonly count: number) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const events = newEvents(this.count);
    const result = await real.engine.append(STREAM, -2, events);
    events.forEach((event, i) => real.ids.set(result.firstEventNumber + i, event.eventId));
    model.appended += this.count;
  }
  toString = () => `append ${this.count}`;
}

class Take implements Command {
  constructor(readonly consumer: string, readonly count: number) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const { messages } = real.service.consume(ADMIN, STREAM, GROUP, identity(this.consumer), this.count);
    if (messages.length > this.count) throw new Error(`took ${messages.length} > ${this.count}`);
    for (const message of messages) {
      const n = message.eventNumber;
      if (n >= model.appended) throw new Error(`message ${n} was never appended`);
      if (model.inFlight.has(n)) throw new Error(`message ${n} is out to two consumers at once`);
      if (model.handled.has(n)) throw new Error(`message ${n} was handled and came again before any restart`);
      const expected = model.retryCounts.get(n) ?? 0;
      if (message.retryCount !== expected) throw new Error(`message ${n}: retryCount ${message.retryCount}, expected ${expected}`);
      if (message.id !== real.ids.get(n)) throw new Error(`message ${n}: id ${message.id} is not the event's`);
      model.inFlight.set(n, { consumer: this.consumer, deadlineMs: model.nowMs + TIMEOUT_MS, retryCount: expected });
      model.retryCounts.delete(n);
    }
  }
  toString = () => `take ${this.consumer} ${this.count}`;
}

class Reply implements Command {
  constructor(readonly pick: number, readonly action: 'ack' | NackAction) {}
  check = (model: Readonly<Model>) => model.inFlight.size > 0;
  async run(model: Model, real: Real): Promise<void> {
    const out = [...model.inFlight.keys()].sort((x, y) => x - y);
    const chosen = out.filter((_, i) => ((this.pick >> (i % 16)) & 1) === 1 || i === this.pick % out.length);
    const ids = chosen.map((n) => real.ids.get(n)!);
    if (this.action === 'ack') real.service.ack(ADMIN, STREAM, GROUP, ids);
    else await real.service.nack(ADMIN, STREAM, GROUP, ids, this.action);
    await real.group().settled();
    for (const n of chosen) {
      const { retryCount } = model.inFlight.get(n)!;
      model.inFlight.delete(n);
      if (this.action === 'retry') {
        retried(model, n, retryCount);
        continue;
      }
      if (this.action === 'park') model.parked.add(n);
      model.handled.add(n);
      model.everHandled.add(n);
    }
  }
  toString = () => `${this.action} pick ${this.pick}`;
}

class Advance implements Command {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    model.nowMs += this.ms;
    real.service.tick();
    await real.group().settled();
    for (const [n, flight] of [...model.inFlight]) {
      if (flight.deadlineMs > model.nowMs) continue;
      model.inFlight.delete(n);
      retried(model, n, flight.retryCount);
    }
  }
  toString = () => `advance ${this.ms} ms`;
}

class Restart implements Command {
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const checkpoint = await real.close();
    for (let n = 0; n <= checkpoint; n++) {
      if (!model.everHandled.has(n)) throw new Error(`the checkpoint ${checkpoint} passed message ${n}, which was not handled`);
    }
    await real.open();
    // At least once: whatever is past the checkpoint may come again, with its retry count anew.
    model.inFlight.clear();
    model.retryCounts.clear();
    model.handled = new Set([...model.handled].filter((n) => n <= checkpoint));
  }
  toString = () => 'restart';
}

const commands = [
  fc.integer({ min: 1, max: 8 }).map((count) => new Append(count)),
  fc.tuple(fc.constantFrom(...CONSUMERS), fc.integer({ min: 1, max: 6 })).map(([consumer, count]) => new Take(consumer, count)),
  fc.tuple(fc.nat(0xffff), fc.constantFrom<'ack' | NackAction>('ack', 'ack', 'park', 'retry', 'skip')).map(([pick, action]) => new Reply(pick, action)),
  fc.constantFrom(300, 700, 1000, 2500).map((ms) => new Advance(ms)),
  fc.constant(null).map(() => new Restart()),
];

/** Delivers and acks everything left, then checks that every event was handled or is parked. */
async function drain(model: Model, real: Real): Promise<void> {
  for (let round = 0; round < 50; round++) {
    model.nowMs += TIMEOUT_MS;
    real.service.tick();
    await real.group().settled();
    for (;;) {
      const { messages } = real.service.consume(ADMIN, STREAM, GROUP, identity('drain'), 100);
      if (messages.length === 0) break;
      real.service.ack(ADMIN, STREAM, GROUP, messages.map((message) => message.id));
      for (const message of messages) model.everHandled.add(message.eventNumber);
    }
    if (real.group().inFlightCount === 0) break;
  }
  const parked = new Set(real.parkedNumbers());
  for (const n of model.parked) if (!parked.has(n)) throw new Error(`message ${n} was parked but is not in the parked stream`);
  for (let n = 0; n < model.appended; n++) {
    if (!model.everHandled.has(n)) throw new Error(`message ${n} was lost: never handled`);
  }
}

t.test('a group against a model of at-least-once delivery', async (t: Test) => {
  const seed = testSeed(t);
  let runs = 0;
  await fc.assert(fc.asyncProperty(fc.commands(commands, { maxCommands: 40 }), async (cmds) => {
    runs++;
    const clock = { nowMs: 1_000_000 };
    const real = new Real(tempDirectory(t), clock);
    await real.open();
    await real.service.create(ADMIN, STREAM, GROUP, {
      messageTimeoutMilliseconds: TIMEOUT_MS, maxRetryCount: MAX_RETRY_COUNT, checkPointAfterMilliseconds: 500,
      minCheckPointCount: 1, maxCheckPointCount: 3, bufferSize: 10, readBatchSize: 4,
    });
    const model: Model = {
      appended: 0, inFlight: new Map(), retryCounts: new Map(), handled: new Set(), everHandled: new Set(), parked: new Set(), nowMs: 0,
    };
    // The model's clock is the real one: both move only by the commands.
    Object.defineProperty(model, 'nowMs', { get: () => clock.nowMs, set: (value: number) => { clock.nowMs = value; } });
    try {
      await fc.asyncModelRun(() => ({ model, real }), cmds);
      await drain(model, real);
    } finally {
      await real.close();
    }
    return true;
  }), { seed, numRuns: 25 });
  t.equal(runs >= 25, true, `${runs} runs`);
});
