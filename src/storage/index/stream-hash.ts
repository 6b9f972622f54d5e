import type { StreamHasher } from './types.js';

/**
 * The 64-bit stream hash the index and the existence filter store on disk:
 * high 32 bits = xxHash32, low 32 bits = Murmur3_32, both over the UTF-16LE bytes of the name with
 * one fixed seed. Two unrelated hash functions make a full 64-bit collision much rarer than one
 * function with two seeds would.
 *
 * Both functions read the string's UTF-16 code units two at a time as one little-endian 32-bit
 * word, which is exactly the byte stream `Buffer.from(name, 'utf16le')` would give, without
 * encoding a buffer on the hot path. These values are on disk: never change them.
 */

const SEED = 0xc58f1a7b;

const XX_PRIME_1 = 0x9e3779b1;
const XX_PRIME_2 = 0x85ebca77;
const XX_PRIME_3 = 0xc2b2ae3d;
const XX_PRIME_4 = 0x27d4eb2f;
const XX_PRIME_5 = 0x165667b1;

const MURMUR_C1 = 0xcc9e2d51;
const MURMUR_C2 = 0x1b873593;

function rotl(value: number, bits: number): number {
  return (value << bits) | (value >>> (32 - bits));
}

/** The 32-bit little-endian word made of code units `index` and `index + 1`. */
function wordAt(name: string, index: number): number {
  return name.charCodeAt(index) | (name.charCodeAt(index + 1) << 16);
}

function xxRound(accumulator: number, input: number): number {
  return Math.imul(rotl((accumulator + Math.imul(input, XX_PRIME_2)) | 0, 13), XX_PRIME_1);
}

/** xxHash32 of the UTF-16LE bytes of `name`. Unsigned. */
export function streamHashHigh(name: string, seed: number = SEED): number {
  const units = name.length;
  const byteLength = units * 2;
  let unit = 0;
  let hash: number;
  if (byteLength >= 16) {
    let v1 = (seed + XX_PRIME_1 + XX_PRIME_2) | 0;
    let v2 = (seed + XX_PRIME_2) | 0;
    let v3 = seed | 0;
    let v4 = (seed - XX_PRIME_1) | 0;
    // A 16-byte stripe is 8 code units.
    const stripesEnd = units - (units % 8);
    for (; unit < stripesEnd; unit += 8) {
      v1 = xxRound(v1, wordAt(name, unit));
      v2 = xxRound(v2, wordAt(name, unit + 2));
      v3 = xxRound(v3, wordAt(name, unit + 4));
      v4 = xxRound(v4, wordAt(name, unit + 6));
    }
    hash = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) | 0;
  } else {
    hash = (seed + XX_PRIME_5) | 0;
  }
  hash = (hash + byteLength) | 0;
  for (; unit + 1 < units; unit += 2) {
    hash = Math.imul(rotl((hash + Math.imul(wordAt(name, unit), XX_PRIME_3)) | 0, 17), XX_PRIME_4);
  }
  if (unit < units) {
    const codeUnit = name.charCodeAt(unit);
    hash = Math.imul(rotl((hash + Math.imul(codeUnit & 0xff, XX_PRIME_5)) | 0, 11), XX_PRIME_1);
    hash = Math.imul(rotl((hash + Math.imul(codeUnit >>> 8, XX_PRIME_5)) | 0, 11), XX_PRIME_1);
  }
  hash ^= hash >>> 15;
  hash = Math.imul(hash, XX_PRIME_2);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, XX_PRIME_3);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

function murmurScramble(word: number): number {
  return Math.imul(rotl(Math.imul(word, MURMUR_C1), 15), MURMUR_C2);
}

/** Murmur3 (x86, 32-bit) of the UTF-16LE bytes of `name`. Unsigned. */
export function streamHashLow(name: string, seed: number = SEED): number {
  const units = name.length;
  let hash = seed | 0;
  let unit = 0;
  for (; unit + 1 < units; unit += 2) {
    hash ^= murmurScramble(wordAt(name, unit));
    hash = (Math.imul(rotl(hash, 13), 5) + 0xe6546b64) | 0;
  }
  if (unit < units) hash ^= murmurScramble(name.charCodeAt(unit));
  hash ^= units * 2;
  return murmurFinalize(hash);
}

/** Murmur3's final avalanche. Unsigned. */
export function murmurFinalize(value: number): number {
  let hash = value;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

export const defaultStreamHasher: StreamHasher = (streamName: string): bigint =>
  (BigInt(streamHashHigh(streamName)) << 32n) | BigInt(streamHashLow(streamName));

/** A stream hash split into two unsigned 32-bit halves, the form the index works with. */
export interface HashParts {
  high: number;
  low: number;
}

/** Writes the hash of a name into `out` (reused by the caller, so nothing is allocated). */
export type HashPartsFunction = (streamName: string, out: HashParts) => void;

/**
 * Adapts a StreamHasher to the split form. The default hasher skips the BigInt round trip; any
 * other (tests inject colliding ones) is called and its result split once.
 */
export function hashPartsFunction(hasher: StreamHasher): HashPartsFunction {
  if (hasher === defaultStreamHasher) {
    return (streamName, out) => {
      out.high = streamHashHigh(streamName);
      out.low = streamHashLow(streamName);
    };
  }
  return (streamName, out) => {
    const hash = hasher(streamName);
    out.high = Number((hash >> 32n) & 0xffffffffn);
    out.low = Number(hash & 0xffffffffn);
  };
}

/** Joins two unsigned halves into the 64-bit value, for tests and diagnostics. */
export function joinHashParts(high: number, low: number): bigint {
  return (BigInt(high) << 32n) | BigInt(low);
}

