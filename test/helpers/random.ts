/**
 * Randomness in tests comes from one seed per run, printed by every test that uses it, so a
 * failure found by chance can be run again: `SVC_TEST_SEED=<seed> npx tap test/…`.
 * fast-check takes the same seed (`fc.assert(property, { seed })`).
 */
import { randomInt } from 'node:crypto';

/** The environment variable that fixes the seed of every randomized test. */
export const SEED_VARIABLE = 'SVC_TEST_SEED';

const SEED_MAX = 0x7fffffff;

/** A deterministic stream of uint32 values (xorshift32), so failures reproduce. */
function randomWords(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
}

/** Where the seed is printed: a tap test (`t.comment`). */
export interface SeedReporter {
  comment(...message: unknown[]): void;
}

let runSeed: number | undefined;

/** This run's seed: SVC_TEST_SEED when set (a positive integer), else a fresh one, the same for the whole file. */
export function seedOfRun(): number {
  if (runSeed !== undefined) return runSeed;
  const fixed = process.env[SEED_VARIABLE];
  if (fixed === undefined || fixed === '') {
    runSeed = randomInt(1, SEED_MAX);
  } else if (/^\d+$/.test(fixed) && Number(fixed) >= 1 && Number(fixed) <= SEED_MAX) {
    runSeed = Number(fixed);
  } else {
    throw new Error(`${SEED_VARIABLE}=${fixed} is not a seed: give an integer from 1 to ${SEED_MAX}, as a test printed it`);
  }
  return runSeed;
}

/** The run's seed, printed on `t` with the command that repeats it. */
export function testSeed(t: SeedReporter): number {
  const seed = seedOfRun();
  t.comment(`random seed ${seed}: re-run with ${SEED_VARIABLE}=${seed}`);
  return seed;
}

/** Seeded random choices for one test. */
export class TestRandom {
  private readonly next: () => number;

  constructor(readonly seed: number) {
    this.next = randomWords(seed);
  }

  /** A uint32. */
  word(): number {
    return this.next();
  }

  /** An integer from `min` to `max`, both included. */
  integer(min: number, max: number): number {
    return min + Math.floor((this.next() / 0x1_0000_0000) * (max - min + 1));
  }

  /** A version-4 UUID. */
  uuid(): string {
    const hex = Array.from({ length: 4 }, () => this.next().toString(16).padStart(8, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${'89ab'[this.next() % 4]}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  }

  /** An independent generator for one part of a test (an appender, a child process). */
  fork(label: number): TestRandom {
    return new TestRandom((Math.imul(this.seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(label + 1, 0xc2b2ae35)) >>> 0 || 1);
  }
}

/** A generator seeded with the run's seed, which is printed on `t`. */
export function testRandom(t: SeedReporter): TestRandom {
  return new TestRandom(testSeed(t));
}
