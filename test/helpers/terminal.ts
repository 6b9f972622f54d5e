/**
 * A CLI run on a real pseudo-terminal: a tmux server of the test's own (its own socket) with one
 * window running the command, read back from the screen as an operator would see it.
 *
 * The command runs under `sh`, which prints `[exit status N]` once it has reaped it: tmux 3.3 was
 * seen to leave an exited command a zombie for minutes without marking its pane dead, so the
 * pane's own "Pane is dead" line is not waited for. The shell traps SIGINT (C-c reaches the whole
 * foreground group) so that it stays to report the status; the command gets the default action.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import type { Test } from 'tap';
import { cliPath } from './cli.js';

const run = promisify(execFile);
const POLL_MS = 100;
const EXIT_LINE = /^\[exit status (\d+)\]$/;

export interface TerminalOptions {
  /** Environment variables removed besides every SVC_* of the test runner, e.g. CI (it turns colours off). */
  unset?: string[];
  columns?: number;
  rows?: number;
  /** How long waitForLine waits. */
  waitMs?: number;
  /** Set for the command (after the runner's SVC_* are removed), e.g. a test hook's variable. */
  env?: Record<string, string>;
}

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

export class TerminalSession {
  private readonly socket = `svcdb-test-${process.pid}-${Math.random().toString(36).slice(2)}`;

  private constructor(private readonly waitMs: number) {}

  /** `svcdb <args>` on a terminal of `columns` × `rows`. */
  static async start(t: Test, args: string[], options: TerminalOptions = {}): Promise<TerminalSession> {
    const session = new TerminalSession(options.waitMs ?? 30_000);
    t.teardown(() => session.tmux(['kill-server']).catch(() => undefined));
    // SVC_* variables of the test runner must not change the command's options.
    const unset = [...Object.keys(process.env).filter((name) => name.startsWith('SVC_')), ...(options.unset ?? [])].flatMap((name) => ['-u', name]);
    const set = Object.entries(options.env ?? {}).map(([name, value]) => `${name}=${value}`);
    const command = ['env', ...unset, ...set, process.execPath, '--no-node-snapshot', cliPath, ...args].map(quote).join(' ');
    const script = `trap true INT; ${command}; echo "[exit status $?]"`;
    await session.tmux(['-f', '/dev/null', 'new-session', '-d', '-x', String(options.columns ?? 200), '-y', String(options.rows ?? 50),
      `sh -c ${quote(script)}`, ';', 'set-option', '-w', 'remain-on-exit', 'on']);
    return session;
  }

  tmux(args: string[]): Promise<string> {
    return run('tmux', ['-L', this.socket, ...args]).then(({ stdout }) => stdout);
  }

  /** The screen's text and what scrolled off it, wrapped lines joined; with `colours`, its escape sequences too. */
  screen(colours = false): Promise<string> {
    return this.tmux(['capture-pane', '-p', '-J', '-S', '-', ...(colours ? ['-e'] : [])]);
  }

  /** Waits until a line of the screen matches; fails naming what it waited for. */
  async waitForLine(pattern: RegExp, what: string): Promise<RegExpMatchArray> {
    const deadline = Date.now() + this.waitMs;
    let text = '';
    while (Date.now() < deadline) {
      text = await this.screen();
      for (const line of text.split('\n')) {
        const match = line.match(pattern);
        if (match) return match;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    throw new Error(`waited ${this.waitMs} ms for ${what} on the terminal; the screen shows:\n${text}`);
  }

  /** Waits for the command to end; its exit status. */
  async exitStatus(): Promise<number> {
    const [, status] = await this.waitForLine(EXIT_LINE, 'the command to exit');
    return Number(status);
  }

  /** The pid of the command (the shell's child: `env` execs it). */
  async commandPid(): Promise<number> {
    const shell = (await this.tmux(['list-panes', '-F', '#{pane_pid}'])).trim();
    const children = readFileSync(`/proc/${shell}/task/${shell}/children`, 'utf8').trim().split(/\s+/);
    return Number(children[0]);
  }

  interrupt(): Promise<string> {
    return this.tmux(['send-keys', 'C-c']);
  }
}

/** Whether a screen line is the shell's report of the command's exit status. */
export function isExitLine(line: string): boolean {
  return EXIT_LINE.test(line);
}
