/**
 * pino's JSON lines made readable on a terminal: one line per event, the time, the level, the
 * message, then the other fields as key=value. Used by `svcdb serve` when stdout is a terminal
 * (or with --log-format pretty); anywhere else the JSON lines go out as they are, for machines.
 * An error's stack is left out to keep one line per event; --log-format json keeps everything.
 */
import type { ChalkInstance } from 'chalk';

type Paint = (text: string) => string;

const levels: ReadonlyMap<number, { name: string; paint: (chalk: ChalkInstance) => Paint }> = new Map([
  [10, { name: 'TRACE', paint: (chalk) => chalk.gray }],
  [20, { name: 'DEBUG', paint: (chalk) => chalk.blue }],
  [30, { name: 'INFO', paint: (chalk) => chalk.green }],
  [40, { name: 'WARN', paint: (chalk) => chalk.yellow }],
  [50, { name: 'ERROR', paint: (chalk) => chalk.red }],
  [60, { name: 'FATAL', paint: (chalk) => chalk.bgRed.white }],
]);

// Shown in their own places, or the same on every line of one process.
const omitted = new Set(['time', 'level', 'msg', 'pid', 'hostname']);

function clock(time: unknown): string {
  const date = typeof time === 'number' ? new Date(time) : new Date();
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

/** A value as an operator would type it: bare when it has no space, quote or equals sign. */
function formatValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'object' && value !== null) {
    // pino's error serializer: the type, code and message, without the stack.
    const error = value as { type?: unknown; message?: unknown; stack?: unknown; code?: unknown };
    if (typeof error.message === 'string' && typeof error.stack === 'string') {
      const code = typeof error.code === 'string' || typeof error.code === 'number' ? ` ${error.code}` : '';
      const type = typeof error.type === 'string' ? error.type : 'Error';
      return JSON.stringify(`${type}${code}: ${error.message}`);
    }
    return JSON.stringify(value);
  }
  return String(value);
}

/** One pino JSON line as one readable line (without its line break); other text is kept as it is. */
export function prettyLine(line: string, chalk: ChalkInstance): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.replace(/\n$/, '');
  }
  const level = levels.get(Number(record.level)) ?? { name: String(record.level).toUpperCase(), paint: (colors: ChalkInstance) => colors.white };
  const fields = Object.entries(record)
    .filter(([key, value]) => !omitted.has(key) && value !== undefined)
    .map(([key, value]) => `${chalk.dim(`${key}=`)}${formatValue(value)}`);
  const message = (typeof record.msg === 'string' ? record.msg : '').replace(/\s*\n\s*/g, ' ');
  return [chalk.dim(clock(record.time)), level.paint(chalk)(level.name.padEnd(5)), chalk.bold(message), ...fields].join(' ');
}

/** A pino destination that writes each line readably to `output`. */
export function prettyDestination(output: NodeJS.WritableStream, chalk: ChalkInstance): { write(line: string): void } {
  return {
    write(line: string) {
      output.write(`${prettyLine(line, chalk)}\n`);
    },
  };
}
