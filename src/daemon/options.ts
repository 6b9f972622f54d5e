/**
 * The options of a running node: their defaults, their limits, and the one function that checks
 * them. Callers (the `serve` command, tests) pass raw values in and get a frozen object back; the
 * rest of the daemon trusts it. The full option system (config file, precedence, /info/options)
 * grows from here.
 */
import net from 'node:net';
import path from 'node:path';
import { Errors } from '../common/errors.js';
import { CHUNK_SIZE_BYTES_MAX, CHUNK_SIZE_BYTES_MIN } from '../storage/engine-options.js';

export interface DaemonOptions {
  /** Directory of the transaction log, checkpoints and lock file. */
  readonly dbPath: string;
  /** Directory of the index files. */
  readonly indexPath: string;
  /** Address the HTTP server binds. */
  readonly httpIp: string;
  /** Port the HTTP server binds; 0 lets the system pick a free port. */
  readonly httpPort: number;
  /** Logical data size of one log chunk. */
  readonly chunkSizeBytes: number;
}

export type DaemonOptionsInput = { [K in keyof DaemonOptions]?: DaemonOptions[K] | undefined };

export const optionDefaults = {
  dbPath: './data/db',
  httpIp: '127.0.0.1',
  httpPort: 2113,
  chunkSizeBytes: 256 * 1024 * 1024,
} as const;

export const optionLimits = {
  httpPort: { min: 0, max: 65_535 },
  // The engine's limits, so a bad value is refused before anything is opened.
  chunkSizeBytes: { min: CHUNK_SIZE_BYTES_MIN, max: CHUNK_SIZE_BYTES_MAX },
} as const;

/** The option names as an operator types them, for error messages. */
const flagNames: Record<keyof DaemonOptions, string> = {
  dbPath: '--db',
  indexPath: '--index',
  httpIp: '--http-ip',
  httpPort: '--http-port',
  chunkSizeBytes: '--chunk-size',
};

/**
 * Applies defaults, checks every value, resolves paths against `cwd`, and freezes the result.
 * Throws SVCDB_ERR_OPTION_INVALID naming the first bad option.
 */
export function daemonOptions(input: DaemonOptionsInput, cwd: string): Readonly<DaemonOptions> {
  const dbPath = path.resolve(cwd, nonEmpty('dbPath', input.dbPath ?? optionDefaults.dbPath));
  // The index lives next to the database directory by default: <db>/../index.
  const indexPath = path.resolve(cwd, nonEmpty('indexPath', input.indexPath ?? path.join(dbPath, '..', 'index')));
  if (indexPath === dbPath) throw invalid('indexPath', 'must be a different directory than --db');
  return Object.freeze({
    dbPath,
    indexPath,
    httpIp: ipAddress('httpIp', input.httpIp ?? optionDefaults.httpIp),
    httpPort: integerIn('httpPort', input.httpPort ?? optionDefaults.httpPort, optionLimits.httpPort),
    chunkSizeBytes: integerIn('chunkSizeBytes', input.chunkSizeBytes ?? optionDefaults.chunkSizeBytes, optionLimits.chunkSizeBytes),
  });
}

function invalid(name: keyof DaemonOptions, why: string) {
  return Errors.optionInvalid.create(flagNames[name], why);
}

function nonEmpty(name: keyof DaemonOptions, value: string): string {
  if (value.trim() === '') throw invalid(name, 'must not be empty');
  return value;
}

function ipAddress(name: keyof DaemonOptions, value: string): string {
  if (net.isIP(value) === 0) throw invalid(name, `${JSON.stringify(value)} is not an IPv4 or IPv6 address`);
  return value;
}

function integerIn(name: keyof DaemonOptions, value: number, limits: { min: number; max: number }): number {
  if (!Number.isSafeInteger(value) || value < limits.min || value > limits.max) {
    throw invalid(name, `must be an integer from ${limits.min} to ${limits.max}, got ${value}`);
  }
  return value;
}
