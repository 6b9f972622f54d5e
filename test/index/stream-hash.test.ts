import t from 'tap';
import fc from 'fast-check';
import {
  defaultStreamHasher,
  hashPartsFunction,
  streamHashHigh,
  streamHashLow,
  type HashParts,
} from '../../src/storage/index/stream-hash.js';
import { testSeed } from '../helpers/random.js';

// Straightforward byte-at-a-time versions of both algorithms, checked against published test
// vectors; the fast code-unit versions must agree with them on the UTF-16LE bytes of any name.
const rotl = (value: number, bits: number) => (value << bits) | (value >>> (32 - bits));
const word = (bytes: Buffer, offset: number) => bytes.readUInt32LE(offset);

function xxHash32Bytes(bytes: Buffer, seed: number): number {
  const P1 = 0x9e3779b1, P2 = 0x85ebca77, P3 = 0xc2b2ae3d, P4 = 0x27d4eb2f, P5 = 0x165667b1;
  const round = (acc: number, input: number) => Math.imul(rotl((acc + Math.imul(input, P2)) | 0, 13), P1);
  let offset = 0;
  let hash: number;
  if (bytes.length >= 16) {
    let v1 = (seed + P1 + P2) | 0, v2 = (seed + P2) | 0, v3 = seed | 0, v4 = (seed - P1) | 0;
    for (; offset + 16 <= bytes.length; offset += 16) {
      v1 = round(v1, word(bytes, offset));
      v2 = round(v2, word(bytes, offset + 4));
      v3 = round(v3, word(bytes, offset + 8));
      v4 = round(v4, word(bytes, offset + 12));
    }
    hash = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) | 0;
  } else {
    hash = (seed + P5) | 0;
  }
  hash = (hash + bytes.length) | 0;
  for (; offset + 4 <= bytes.length; offset += 4) {
    hash = Math.imul(rotl((hash + Math.imul(word(bytes, offset), P3)) | 0, 17), P4);
  }
  for (; offset < bytes.length; offset++) {
    hash = Math.imul(rotl((hash + Math.imul(bytes[offset], P5)) | 0, 11), P1);
  }
  hash ^= hash >>> 15;
  hash = Math.imul(hash, P2);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, P3);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

function murmur3Bytes(bytes: Buffer, seed: number): number {
  const C1 = 0xcc9e2d51, C2 = 0x1b873593;
  const scramble = (k: number) => Math.imul(rotl(Math.imul(k, C1), 15), C2);
  let hash = seed | 0;
  let offset = 0;
  for (; offset + 4 <= bytes.length; offset += 4) {
    hash ^= scramble(word(bytes, offset));
    hash = (Math.imul(rotl(hash, 13), 5) + 0xe6546b64) | 0;
  }
  let tail = 0;
  for (let i = bytes.length - 1; i >= offset; i--) tail = (tail << 8) | bytes[i];
  if (bytes.length > offset) hash ^= scramble(tail);
  hash ^= bytes.length;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

t.test('the byte-level reference implementations match published test vectors', async (t) => {
  const ascii = (text: string) => Buffer.from(text, 'latin1');
  t.equal(xxHash32Bytes(ascii(''), 0), 0x02cc5d05);
  t.equal(xxHash32Bytes(ascii('a'), 0), 0x550d7456);
  t.equal(xxHash32Bytes(ascii('abc'), 0), 0x32d153ff);
  t.equal(xxHash32Bytes(ascii('Nobody inspects the spammish repetition'), 0), 0xe2293b2f);
  t.equal(murmur3Bytes(ascii(''), 0), 0);
  t.equal(murmur3Bytes(ascii(''), 1), 0x514e28b7);
  t.equal(murmur3Bytes(ascii(''), 0xffffffff), 0x81f16f39);
  t.equal(murmur3Bytes(ascii('The quick brown fox jumps over the lazy dog'), 0), 0x2e4ff723);
});

t.test('the code-unit hashes equal the byte-level hashes of the UTF-16LE encoding', async (t) => {
  const hashSeed = 0xc58f1a7b;
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (name) => {
      const bytes = Buffer.from(name, 'utf16le');
      return streamHashHigh(name) === xxHash32Bytes(bytes, hashSeed) && streamHashLow(name) === murmur3Bytes(bytes, hashSeed);
    }),
    { numRuns: 2000, seed: testSeed(t) },
  );
  // Every length from 0 to 40 code units, so each tail and stripe path is taken.
  for (let length = 0; length <= 40; length++) {
    const name = 'stream-€-'.repeat(5).slice(0, length);
    const bytes = Buffer.from(name, 'utf16le');
    t.equal(streamHashHigh(name), xxHash32Bytes(bytes, hashSeed), `xxHash32 at length ${length}`);
    t.equal(streamHashLow(name), murmur3Bytes(bytes, hashSeed), `murmur3 at length ${length}`);
  }
});

t.test('the stream hash is pinned: these values are on disk', async (t) => {
  // Regression guard: changing the hash would silently orphan every existing index file.
  const pinned: Array<[string, bigint]> = [
    ['', 0x8f0b342c821f9986n],
    ['a', 0x29c7cafccfb6533en],
    ['$all', 0xd25e517ed3056acan],
    ['orders-42', 0x2d27010cc0680a87n],
    ['customer-7f9c2a1e-5d3b-4b8e-9c1a-2f6e8d4b0a73', 0x6e9ecd205050780en],
    ['наряд-€-😀', 0x1f55bef949b37669n],
  ];
  for (const [name, expected] of pinned) {
    t.equal(defaultStreamHasher(name), expected, `hash of ${JSON.stringify(name)}`);
  }
});

t.test('hashPartsFunction splits any hasher into unsigned halves', async (t) => {
  const out: HashParts = { high: 0, low: 0 };
  hashPartsFunction(defaultStreamHasher)('orders-42', out);
  t.equal((BigInt(out.high) << 32n) | BigInt(out.low), defaultStreamHasher('orders-42'));
  hashPartsFunction(() => 0xfedcba9876543210n)('anything', out);
  t.same(out, { high: 0xfedcba98, low: 0x76543210 });
});
