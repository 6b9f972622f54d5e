/**
 * A child process for the chunk-replacement crash test: opens the engine on argv[2], rewrites
 * chunk 0 without its old epoch records (as a scavenge would drop records), and SIGKILLs itself
 * right after the replacement step named in argv[3].
 */
import { Engine } from '../../src/storage/engine.js';
import { RecordKind } from '../../src/storage/log/record.js';
import { engineOptions } from './engine.js';

const [directory, killAfter] = process.argv.slice(2) as [string, string];
const engine = await Engine.open(engineOptions(directory));
const epochPosition = engine.status().epochPosition;
await engine.rewriteChunks(0, 0, (record) => record.kind !== RecordKind.system || record.logPosition === epochPosition, {
  onStep: (step) => {
    process.stdout.write(`step ${step}\n`);
    if (step === killAfter) process.kill(process.pid, 'SIGKILL');
  },
});
process.stdout.write('done\n');
await engine.close();
