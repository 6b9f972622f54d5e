/**
 * What starting a peer's server takes: a free loopback port, a scratch directory, its binary on
 * PATH, and the child process, awaited until it logs that it accepts connections.
 */
import { execa, type ResultPromise } from 'execa';
import { accessSync, constants, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export function scratchDirectory(name: string): string {
  return mkdtempSync(join(process.env.SVC_BENCH_DIR ?? tmpdir(), `svcdb-bench-${name}-`));
}

/** The first of `paths` that is an executable file. */
export function firstExecutable(paths: string[]): string | undefined {
  return paths.find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

export function onPath(name: string): string | undefined {
  return firstExecutable((process.env.PATH ?? '').split(delimiter).filter(Boolean).map((directory) => join(directory, name)));
}

/** A loopback port that nothing listens on now (the server binds it a moment later). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const LINES_KEPT = 20;

/**
 * Starts `command` and waits for a line of its output matching `ready`; if it exits first, the
 * error carries its last lines. Every line is also given to `onLine`, for as long as it runs. The
 * child comes wrapped: a promise resolved with it would wait for its exit.
 */
export async function startUntilReady(command: string[], ready: RegExp, onLine?: (line: string) => void): Promise<{ child: ResultPromise }> {
  const [file, ...args] = command;
  const lastLines: string[] = [];
  let readied!: () => void;
  const readyLogged = new Promise<void>((resolve) => {
    readied = resolve;
  });
  // A server logs for as long as it runs: each line is looked at and only the last few kept.
  const watch = function* (line: unknown) {
    const text = String(line);
    lastLines.push(text);
    if (lastLines.length > LINES_KEPT) lastLines.shift();
    if (ready.test(text)) readied();
    onLine?.(text);
  };
  const child = execa(file, args, { stdin: 'ignore', stdout: watch, stderr: watch, reject: false, forceKillAfterDelay: false });
  const exitedFirst = child.then((result) => {
    throw new Error(`${file} exited with ${result.exitCode ?? result.signal} before it was ready:\n${lastLines.join('\n')}`);
  });
  await Promise.race([readyLogged, exitedFirst]);
  return { child };
}
