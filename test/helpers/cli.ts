/**
 * Runs the svcdb command line as a child process, the way an operator or a service manager does:
 * `node bin/run.js …` on the compiled code (`npm test` builds first). Used by the serve tests and
 * by crash tests that SIGKILL a node and start it again.
 *
 * Nothing here sleeps: a test waits for a log line, or for the process to exit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
export const cliPath = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
const compiledCommands = fileURLToPath(new URL('../../dist/src/commands/', import.meta.url));

export type LogLine = Record<string, unknown> & { msg?: string };

export interface CliExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Added to the environment; SVC_* variables of the test runner are never passed on. */
  env?: Record<string, string>;
  cwd?: string;
}

interface LogWaiter {
  predicate: (line: LogLine) => boolean;
  resolve: (line: LogLine) => void;
  reject: (error: Error) => void;
}

/** One run of the command line, with its output collected as it arrives. */
export class CliProcess {
  readonly child: ChildProcess;
  /** stdout lines that are JSON objects (the daemon's log), in order. */
  readonly logLines: LogLine[] = [];
  stdout = '';
  stderr = '';
  /** Resolves when the process has exited and its output is fully read. */
  readonly exited: Promise<CliExit>;
  private waiters: LogWaiter[] = [];
  private exit: CliExit | undefined;

  constructor(readonly args: readonly string[], options: CliOptions = {}) {
    if (!existsSync(compiledCommands)) {
      throw new Error(`${compiledCommands} is missing: run \`npm run build\` (npm test does) before these tests`);
    }
    this.child = spawn(process.execPath, [cliPath, ...args], {
      cwd: options.cwd ?? repositoryRoot,
      env: childEnvironment(options.env ?? {}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    const lines = createInterface({ input: this.child.stdout!, crlfDelay: Infinity });
    lines.on('line', (line) => this.onStdoutLine(line));
    this.exited = Promise.all([once(this.child, 'exit'), once(lines, 'close')]).then(([[code, signal]]) => {
      this.exit = { code, signal, stdout: this.stdout, stderr: this.stderr };
      for (const waiter of this.waiters) waiter.reject(this.exitedBeforeError());
      this.waiters = [];
      return this.exit;
    });
  }

  /** The first log line (already written or still to come) that matches; rejects if the process exits first. */
  waitForLog(predicate: (line: LogLine) => boolean): Promise<LogLine> {
    const seen = this.logLines.find(predicate);
    if (seen) return Promise.resolve(seen);
    if (this.exit) return Promise.reject(this.exitedBeforeError());
    return new Promise((resolve, reject) => this.waiters.push({ predicate, resolve, reject }));
  }

  /** Sends a signal and waits for the exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<CliExit> {
    if (!this.exit) this.child.kill(signal);
    return this.exited;
  }

  private onStdoutLine(line: string): void {
    this.stdout += `${line}\n`;
    const parsed = parseLogLine(line);
    if (!parsed) return;
    this.logLines.push(parsed);
    const matched = this.waiters.filter((waiter) => waiter.predicate(parsed));
    this.waiters = this.waiters.filter((waiter) => !matched.includes(waiter));
    for (const waiter of matched) waiter.resolve(parsed);
  }

  private exitedBeforeError(): Error {
    const { code, signal } = this.exit ?? { code: null, signal: null };
    return new Error(
      `svcdb ${this.args.join(' ')} exited (code ${code}, signal ${signal}) before the awaited log line\n`
      + `stdout:\n${this.stdout}\nstderr:\n${this.stderr}`,
    );
  }
}

/** Runs a command to completion. */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliExit> {
  return new CliProcess(args, options).exited;
}

export interface TeardownHost {
  teardown(fn: () => unknown): void;
}

export interface ServerOptions extends CliOptions {
  dbPath: string;
  /** More flags for `svcdb serve`; the HTTP port is 0 (any free port) unless given here. */
  args?: readonly string[];
}

export interface RunningServer {
  process: CliProcess;
  port: number;
  /** `http://<address>:<port>`, or https:// when the node serves TLS, from the listening line. */
  url: string;
}

/**
 * Starts `svcdb serve` on a free port and resolves once it logs that it listens. The process is
 * killed at teardown if the test did not stop it.
 */
export async function startServer(t: TeardownHost, options: ServerOptions): Promise<RunningServer> {
  const serve = new CliProcess(['serve', '--db', options.dbPath, '--http-port', '0', ...(options.args ?? [])], options);
  t.teardown(() => serve.stop('SIGKILL'));
  const listening = await serve.waitForLog((line) => line.msg === 'listening');
  const port = listening.port;
  if (typeof port !== 'number') throw new Error(`the listening line has no port: ${JSON.stringify(listening)}`);
  const address = String(listening.address);
  const host = address.includes(':') ? `[${address}]` : address;
  const scheme = listening.protocol === 'https' ? 'https' : 'http';
  return { process: serve, port, url: `${scheme}://${host}:${port}` };
}

function childEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('SVC_')) env[name] = value;
  }
  // Plain text on stderr, so tests can read the messages.
  return { ...env, FORCE_COLOR: '0', ...extra };
}

function parseLogLine(line: string): LogLine | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null ? (value as LogLine) : undefined;
  } catch {
    return undefined;
  }
}
