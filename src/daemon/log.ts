/**
 * The process logger: pino JSON lines on stdout, one line per event, left to the OS or the
 * service manager to collect and rotate. Components take a child with a `component` binding.
 */
import { pino, type Logger as PinoLogger } from 'pino';

export type ProcessLogger = PinoLogger;

export function createProcessLogger(level: pino.LevelWithSilent = 'info'): ProcessLogger {
  return pino({
    level,
    // Credentials never reach the log, whatever a later serializer adds.
    redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.password'], censor: '[redacted]' },
  });
}
