/**
 * The logging surface the engine and services use: the subset of pino's Logger they call, so a
 * library layer (storage) depends on no logging package and tests can pass a silent logger.
 */
export interface Logger {
  debug(object: object, message?: string): void;
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

const noop = () => undefined;

export const silentLogger: Logger = {
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  child: () => silentLogger,
};
