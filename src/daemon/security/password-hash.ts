/**
 * Password hashing: scrypt with a random 16-byte salt per hash. The parameters are stored beside
 * the hash, so that stronger parameters can be adopted later without breaking stored users.
 * Every hash and verification of the node goes through one PasswordHasher, whose scrypt runs
 * on threads of its own (scrypt-workers.ts), never on the thread pool the storage's I/O uses.
 */
import { randomBytes, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { ScryptJob } from './scrypt-workers.js';

export interface PasswordHash {
  /** `scrypt:N:r:p`. */
  algorithm: string;
  /** base64 */
  salt: string;
  /** base64 */
  hash: string;
}

/** Runs one scrypt derivation (ScryptWorkers.run). */
export type Scrypt = (job: ScryptJob) => Promise<Buffer>;

const KEY_BYTES = 32;
const SALT_BYTES = 16;
// N = 2^14 costs about 16 MiB and some tens of milliseconds: run once per login, then cached.
const DEFAULT_PARAMETERS = { N: 16_384, r: 8, p: 1 } as const;

/** scrypt needs 128·N·r bytes; twice that leaves room for its own bookkeeping. */
function scryptOptions(N: number, r: number, p: number): ScryptOptions {
  return { N, r, p, maxmem: 128 * N * r * 2 };
}

function parametersOf(algorithm: string): ScryptOptions | undefined {
  const match = /^scrypt:(\d+):(\d+):(\d+)$/.exec(algorithm);
  if (!match) return undefined;
  const [N, r, p] = match.slice(1).map(Number);
  return scryptOptions(N, r, p);
}

export class PasswordHasher {
  constructor(private readonly scrypt: Scrypt) {}

  async hash(password: string): Promise<PasswordHash> {
    const salt = randomBytes(SALT_BYTES);
    const { N, r, p } = DEFAULT_PARAMETERS;
    const key = await this.scrypt({ password, salt, keyBytes: KEY_BYTES, options: scryptOptions(N, r, p) });
    return { algorithm: `scrypt:${N}:${r}:${p}`, salt: salt.toString('base64'), hash: key.toString('base64') };
  }

  /** True when `password` is the one `stored` was made from; false for a stored hash it cannot read. */
  async verify(password: string, stored: PasswordHash): Promise<boolean> {
    const options = parametersOf(stored.algorithm);
    if (options === undefined) return false;
    const expected = Buffer.from(stored.hash, 'base64');
    if (expected.length !== KEY_BYTES) return false;
    const key = await this.scrypt({ password, salt: Buffer.from(stored.salt, 'base64'), keyBytes: KEY_BYTES, options });
    return timingSafeEqual(key, expected);
  }
}
