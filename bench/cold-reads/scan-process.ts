/**
 * The readers of a scans round in a process of their own, so that their work (parsing pages of
 * `$all`) never holds up the event loop that sends the appends and times them. `startScanProcess`
 * forks this file with the node's URL, the round's label, the events per stream and the readers'
 * names; the child says when its readers run, and on `stop` answers with the events/s of each.
 * It shares the appenders' core, below them (nice 10): an append's answer wakes the appenders
 * at once instead of after the readers' turn, which would count in the append's latency.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { nowMs } from '../measure.js';
import { startScans } from './scanners.js';

const READERS_NICE = 10;

type Message = { started: true } | { rates: Record<string, number> };

/** The next message of `child`, or an error if it exits first. */
async function nextMessage(child: ChildProcess): Promise<Message> {
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`the readers' process exited with ${String(code)}`);
  });
  return Promise.race([once(child, 'message').then(([message]) => message as Message), exited]);
}

/** Starts the readers in a child (which inherits this process's core); stop() gives each one's events/s. */
export async function startScanProcess(readers: readonly string[], url: string, round: string, eventsPerStream: number): Promise<{ stop(): Promise<Map<string, number>> }> {
  const child = fork(fileURLToPath(import.meta.url), [url, round, String(eventsPerStream), readers.join(',')], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await nextMessage(child);
  return {
    stop: async () => {
      child.send('stop');
      const message = await nextMessage(child);
      await once(child, 'exit');
      return new Map(Object.entries('rates' in message ? message.rates : {}));
    },
  };
}

async function runReaders(): Promise<void> {
  const [url, round, eventsPerStream, names] = process.argv.slice(2);
  setPriority(READERS_NICE);
  const started = nowMs();
  const scans = await startScans(names.split(','), url, round, Number(eventsPerStream));
  process.send!({ started: true });
  await once(process, 'message');
  const events = await Promise.all(scans.map(async (scan) => [scan.name, await scan.stop()] as const));
  const seconds = (nowMs() - started) / 1000;
  process.send!({ rates: Object.fromEntries(events.map(([name, count]) => [name, count / seconds])) }, () => process.disconnect());
}

// Run as the forked child: the parent only imports startScanProcess.
if (process.send !== undefined && process.argv[1] === fileURLToPath(import.meta.url)) {
  runReaders().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack}\n`);
    process.exit(1);
  });
}
