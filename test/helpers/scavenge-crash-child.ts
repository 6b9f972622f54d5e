/**
 * A child process for the scavenge crash test: opens the engine on argv[2] (with the fixed clock
 * argv[4]), runs a scavenge to the point argv[3] (JSON) with two threads while it appends to the
 * stream `live`, and prints `stage <name>` as stages start and `ack <number> <id>` once an append
 * is acknowledged. The test SIGKILLs it at some moment; it prints `done` if it gets to the end.
 */
import { randomUUID } from 'node:crypto';
import { Engine } from '../../src/storage/engine.js';
import type { ScavengePoint } from '../../src/storage/maintenance/scavenge/types.js';
import { engineOptions } from './engine.js';
import { runScavenge, scavengerFor } from './scavenge.js';

const [directory, pointJson, clockMs] = process.argv.slice(2) as [string, string, string];
const point = JSON.parse(pointJson) as ScavengePoint;
const engine = await Engine.open(engineOptions(directory, { clock: () => Number(clockMs) }));
const scavenger = scavengerFor(engine, engineOptions(directory).indexPath);
let running = true;
const run = runScavenge(scavenger, point, {
  threads: 2, observer: { stageStarted: (stage) => process.stdout.write(`stage ${stage}\n`) },
}).finally(() => (running = false));
while (running) {
  const eventId = randomUUID();
  const result = await engine.append('live', -2, [{ eventId, eventType: 'Live', data: Buffer.from('{}'), metadata: Buffer.alloc(0), isJson: true }]);
  process.stdout.write(`ack ${result.firstEventNumber} ${eventId}\n`);
}
const outcome = await run;
process.stdout.write(`done ${outcome.result}\n`);
scavenger.close();
await engine.close();
