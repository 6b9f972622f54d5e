/**
 * Runs the svcdb command line as a child process, the way an operator or a service manager does:
 * `node bin/run.js …` on the compiled code (`npm test` builds first). Used by the serve tests and
 * by crash tests that SIGKILL a node and start it again.
 *
 * Nothing here sleeps: a test waits for a log line, or for the process to exit, each with a
 * deadline that fails naming what it waited for.
 */
import { execa, type ResultPromise } from 'execa';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WAIT_DEADLINE_MS, WaitTimeoutError, withDeadline } from './wait.js';

export const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));
export const cliPath = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
const compiledCommands = fileURLToPath(new URL('../../dist/src/commands', import.meta.url));

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
  /** Written to the command's standard input, which is closed after it; no input otherwise. */
  input?: string;
}

export interface LogWaitOptions {
  /** What the awaited line is, for the failure message; the predicate's source by default. */
  description?: string;
  timeoutMs?: number;
}

interface LogWaiter {
  predicate: (line: LogLine) => boolean;
  resolve: (line: LogLine) => void;
  reject: (error: Error) => void;
}

/** One run of the command line, with its output collected as it arrives. */
export class CliProcess {
  readonly child: ResultPromise;
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
    // execa's transforms are called with their own `this`: they reach the process object by name.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const cli = this;
    this.child = execa(process.execPath, ['--no-node-snapshot', cliPath, ...args], {
      cwd: options.cwd ?? repositoryRoot,
      env: childEnvironment(options.env ?? {}),
      extendEnv: false,
      ...(options.input === undefined ? { stdin: 'ignore' as const } : { input: options.input }),
      // Each line is handled as it arrives and not kept by execa: this object keeps the output.
      stdout: function* (line: unknown) {
        cli.onStdoutLine(String(line));
      },
      stderr: {
        transform: function* (text: unknown) {
          cli.stderr += String(text);
        },
        preserveNewlines: true,
      },
      // A test reads the exit code and signal; it does not want a rejection for them.
      reject: false,
      // A node given SIGTERM may take its time to stop cleanly; it is never escalated to SIGKILL.
      forceKillAfterDelay: false,
    });
    this.exited = this.child.then((result) => {
      this.exit = { code: result.exitCode ?? null, signal: (result.signal ?? null), stdout: this.stdout, stderr: this.stderr };
      for (const waiter of this.waiters) waiter.reject(this.exitedBeforeError());
      this.waiters = [];
      return this.exit;
    });
  }

  /**
   * The first log line (already written or still to come) that matches; rejects if the process
   * exits first, or after `timeoutMs` with a message naming the line.
   */
  waitForLog(predicate: (line: LogLine) => boolean, options: LogWaitOptions = {}): Promise<LogLine> {
    const seen = this.logLines.find(predicate);
    if (seen) return Promise.resolve(seen);
    if (this.exit) return Promise.reject(this.exitedBeforeError());
    const timeoutMs = options.timeoutMs ?? WAIT_DEADLINE_MS;
    const description = options.description ?? `a log line matching ${predicate.toString()}`;
    const waiter = new Promise<LogLine>((resolve, reject) => this.waiters.push({ predicate, resolve, reject }));
    return withDeadline(waiter, description, timeoutMs).catch((error: unknown) => {
      if (!(error instanceof WaitTimeoutError)) throw error;
      this.waiters = this.waiters.filter((entry) => entry.predicate !== predicate);
      throw new WaitTimeoutError(`${description} from svcdb ${this.args.join(' ')}`, timeoutMs, this.outputSoFar());
    });
  }

  /** Sends a signal and waits for the exit, at most `timeoutMs`. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = WAIT_DEADLINE_MS): Promise<CliExit> {
    if (!this.exit) this.child.kill(signal);
    return withDeadline(this.exited, `svcdb ${this.args.join(' ')} to exit after ${signal}`, timeoutMs);
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

  private outputSoFar(): string {
    return `stdout:\n${this.stdout}\nstderr:\n${this.stderr}`;
  }

  private exitedBeforeError(): Error {
    const { code, signal } = this.exit ?? { code: null, signal: null };
    return new Error(`svcdb ${this.args.join(' ')} exited (code ${code}, signal ${signal}) before the awaited log line\n${this.outputSoFar()}`);
  }
}

/** Runs a command to completion, at most `timeoutMs`. */
export function runCli(args: readonly string[], options: CliOptions = {}, timeoutMs = WAIT_DEADLINE_MS): Promise<CliExit> {
  const run = new CliProcess(args, options);
  return withDeadline(run.exited, `svcdb ${args.join(' ')} to exit`, timeoutMs).catch((error: unknown) => {
    run.child.kill('SIGKILL');
    throw error;
  });
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
  const args = options.args ?? [];
  const anyPort = args.includes('--http-port') ? [] : ['--http-port', '0'];
  const serve = new CliProcess(['serve', '--db', options.dbPath, ...anyPort, ...args], options);
  t.teardown(() => serve.stop('SIGKILL'));
  const listening = await serve.waitForLog((line) => line.msg === 'listening', { description: 'the "listening" log line' });
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
