/**
 * A child process for crash tests: opens the engine on argv[2] and runs argv[3] appender loops,
 * each appending batches of 1-5 events (sizes drawn from the seed in argv[4]) to its own stream
 * with the exact expected version. After each
 * acknowledged append it prints `ack <stream> <lastEventNumber>`; the parent SIGKILLs it at a
 * random moment. Event ids and bodies derive from (stream, event number), so the parent can
 * tell an event that was sent from one that was invented.
 */
import { createHash } from 'node:crypto';
import { Engine } from '../../src/storage/engine.js';
import { engineOptions } from './engine.js';
import { TestRandom } from './random.js';

export function crashEventId(stream: string, eventNumber: number): string {
  const hex = createHash('sha256').update(`${stream}/${eventNumber}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export function crashEventBody(stream: string, eventNumber: number, batchFirst: number, batchSize: number): Buffer {
  return Buffer.from(JSON.stringify({ stream, eventNumber, batchFirst, batchSize, pad: 'p'.repeat(eventNumber % 300) }));
}

async function appendLoop(engine: Engine, stream: string, random: TestRandom): Promise<void> {
  let last = engine.readStreamBackward(stream, -1, 1).events[0]?.eventNumber ?? -1;
  for (;;) {
    const size = random.integer(1, 5);
    const first = last + 1;
    const events = Array.from({ length: size }, (_, i) => ({
      eventId: crashEventId(stream, first + i),
      eventType: 'CrashTest',
      data: crashEventBody(stream, first + i, first, size),
      metadata: Buffer.alloc(0),
      isJson: true,
    }));
    const result = await engine.append(stream, last, events);
    last = result.lastEventNumber;
    process.stdout.write(`ack ${stream} ${last}\n`);
  }
}

async function main(): Promise<void> {
  const [directory, appenders, seed] = [process.argv[2], Number(process.argv[3] ?? 16), Number(process.argv[4] ?? 1)];
  const random = new TestRandom(seed);
  const engine = await Engine.open(engineOptions(directory, { verifyChunks: 'off' }));
  process.stdout.write('ready\n');
  await Promise.all(Array.from({ length: appenders }, (_, i) => appendLoop(engine, `crash-${i}`, random.fork(i))));
}

if (process.argv[1]?.endsWith('crash-writer.ts')) {
  main().catch((error) => {
    process.stderr.write(`${(error as Error).stack}\n`);
    process.exit(1);
  });
}
