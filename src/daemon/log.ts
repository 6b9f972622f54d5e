/**
 * The process logger: pino JSON lines on stdout, one line per event, left to the OS or the
 * service manager to collect and rotate; readable lines instead when a person watches stdout on
 * a terminal (--log-format). Components take a child with a `component` binding.
 */
import chalk from 'chalk';
import { pino, type Logger as PinoLogger } from 'pino';
import type { LogFormat } from '../common/options/schema.js';
import { prettyDestination } from './log-pretty.js';

export type ProcessLogger = PinoLogger;

export interface ProcessLoggerOptions {
  level?: pino.LevelWithSilent;
  format?: LogFormat;
  /** Where the lines go; a terminal gets readable lines with --log-format auto. */
  output?: NodeJS.WriteStream;
}

/** auto is pretty on a terminal and JSON lines anywhere else (a pipe, a file, journald). */
export function resolveLogFormat(format: LogFormat, isTerminal: boolean): 'json' | 'pretty' {
  if (format === 'auto') return isTerminal ? 'pretty' : 'json';
  return format;
}

/**
 * fastify logs "Server listening at <url>" once per address it listens on (every interface for
 * 0.0.0.0); the node logs one "listening" line with address, port and protocol instead.
 */
function isFastifyListeningLine(args: unknown[]): boolean {
  return typeof args[0] === 'string' && args[0].startsWith('Server listening at ');
}

export function createProcessLogger({ level = 'info', format = 'json', output = process.stdout }: ProcessLoggerOptions = {}): ProcessLogger {
  const options: pino.LoggerOptions = {
    level,
    // Credentials never reach the log, whatever a later serializer adds.
    redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.password'], censor: '[redacted]' },
    hooks: {
      logMethod(args, method) {
        if (isFastifyListeningLine(args)) return;
        method.apply(this, args);
      },
    },
  };
  if (resolveLogFormat(format, output.isTTY === true) === 'pretty') return pino(options, prettyDestination(output, chalk));
  return output === process.stdout ? pino(options) : pino(options, output);
}
