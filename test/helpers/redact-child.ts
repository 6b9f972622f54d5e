/**
 * `svcdb redact` for the redaction crash test, as a child process: redacts the events of argv[4]
 * (eventNumber@stream, comma-separated) on the node serving argv[2], and SIGKILLs itself right
 * after the step named in argv[3].
 */
import { parseEventList } from '../../src/maint/redact/events-list.js';
import { redact } from '../../src/maint/redact/redact.js';

const [dbPath, killAfter, events] = process.argv.slice(2) as [string, string, string];
await redact({
  dbPath,
  events: parseEventList(events),
  onStep: (step) => {
    process.stdout.write(`step ${step}\n`);
    if (step === killAfter) process.kill(process.pid, 'SIGKILL');
  },
});
process.stdout.write('done\n');
