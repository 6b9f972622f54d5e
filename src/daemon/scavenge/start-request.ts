/**
 * The parameters of a scavenge start (`POST /admin/scavenge?threads&threshold&throttlePercent&syncOnly`),
 * checked once at the edge. Each rule refuses with SVCDB_ERR_SCAVENGE_PARAMETER_INVALID naming the
 * parameter and what to send instead; a refused start changes nothing.
 */
import { Errors } from '../../common/errors.js';

export const SCAVENGE_THREADS_MAX = 4;

export interface ScavengeStartRequest {
  /** 1–4 chunks executed in parallel. */
  readonly threads: number;
  /** Minimum chunk weight of a new scavenge point: -1 every chunk, 0 any weight > 0, N weight > N. */
  readonly threshold: number;
  /** 1–100: share of the time the run is active; 100 when threads > 1. */
  readonly throttlePercent: number;
  /** Never write a new scavenge point: only scavenge to one that exists and is not reached. */
  readonly syncOnly: boolean;
}

export const DEFAULT_START_REQUEST: ScavengeStartRequest = Object.freeze({ threads: 1, threshold: 0, throttlePercent: 100, syncOnly: false });

/** Query values as a router hands them over: absent, one string, or repeated. */
export type QueryValue = string | string[] | undefined;

function single(name: string, value: QueryValue): string | undefined {
  if (Array.isArray(value)) {
    if (value.length > 1) throw Errors.scavengeParameterInvalid.create(name, 'it is given more than once; send it once');
    return value[0];
  }
  return value;
}

function integer(name: string, value: QueryValue, fallback: number): number {
  const text = single(name, value);
  if (text === undefined || text === '') return fallback;
  if (!/^-?\d{1,15}$/.test(text)) throw Errors.scavengeParameterInvalid.create(name, `${JSON.stringify(text)} is not an integer`);
  return Number(text);
}

function boolean(name: string, value: QueryValue): boolean {
  const text = single(name, value);
  if (text === undefined || text === '') return false;
  const lower = text.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  throw Errors.scavengeParameterInvalid.create(name, `${JSON.stringify(text)} is not true or false`);
}

export interface ParsedStart {
  request: ScavengeStartRequest;
  /** startFromChunk was given: deprecated and ignored, worth a warning. */
  startFromChunkIgnored: boolean;
}

/** Checks the query of a start; throws the coded error of the first rule it breaks. */
export function parseStartRequest(query: Record<string, QueryValue>): ParsedStart {
  const threads = integer('threads', query.threads, DEFAULT_START_REQUEST.threads);
  const threshold = integer('threshold', query.threshold, DEFAULT_START_REQUEST.threshold);
  const throttlePercent = integer('throttlePercent', query.throttlePercent, DEFAULT_START_REQUEST.throttlePercent);
  const syncOnly = boolean('syncOnly', query.syncOnly);
  // Checked as an integer so a malformed value is still refused, then ignored.
  const startFromChunk = single('startFromChunk', query.startFromChunk);
  if (startFromChunk !== undefined && startFromChunk !== '') integer('startFromChunk', startFromChunk, 0);
  if (threads < 1) throw Errors.scavengeParameterInvalid.create('threads', `threads must be a 1 or above (got ${threads})`);
  if (threads > SCAVENGE_THREADS_MAX) {
    throw Errors.scavengeParameterInvalid.create('threads', `at most ${SCAVENGE_THREADS_MAX} threads scavenge at once (got ${threads})`);
  }
  if (threshold < -1) throw Errors.scavengeParameterInvalid.create('threshold', `use -1 (every chunk), 0 (chunks with anything to remove) or a positive weight (got ${threshold})`);
  if (throttlePercent < 1 || throttlePercent > 100) {
    throw Errors.scavengeParameterInvalid.create('throttlePercent', `throttlePercent must be between 1 and 100 inclusive (got ${throttlePercent})`);
  }
  if (throttlePercent !== 100 && threads > 1) {
    throw Errors.scavengeParameterInvalid.create('throttlePercent', 'throttlePercent must be 100 for a multi-threaded scavenge; use threads=1 to throttle');
  }
  return { request: Object.freeze({ threads, threshold, throttlePercent, syncOnly }), startFromChunkIgnored: startFromChunk !== undefined };
}
