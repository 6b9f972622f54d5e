import t from 'tap';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { Md5Lanes } from '../../src/common/md5-lanes.js';
import { testRandom, type TestRandom } from '../helpers/random.js';

/**
 * Four messages hashed side by side give the MD5 that createHash gives each alone, whatever
 * their lengths (every tail length around the padding's edges), however they are split into
 * updates, and when lanes end at different times or start again after a digest.
 */

function randomBytes(random: TestRandom, length: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  for (let i = 0; i < length; i++) bytes[i] = random.word() & 0xff;
  return bytes;
}

const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest();

/** Random update lengths for a message: whole blocks that fit a slot, then what is left. */
function randomSplit(length: number, slotBytes: number, random: TestRandom): number[] {
  const lengths: number[] = [];
  let left = length;
  while (left > slotBytes || (left > 0 && random.integer(0, 2) === 0)) {
    const whole = Math.min(random.integer(0, slotBytes / 64), Math.floor((left - 1) / 64)) * 64;
    lengths.push(whole);
    left -= whole;
  }
  return [...lengths, left];
}

/** Hashes `messages` (one per lane) in updates of random sizes, alternating slots. */
function hashSideBySide(lanes: Md5Lanes, messages: readonly Buffer[], random: TestRandom): Buffer[] {
  const splits = messages.map((message) => randomSplit(message.length, lanes.slotBytes, random));
  const sent = messages.map(() => 0);
  for (let round = 0; round < Math.max(...splits.map((split) => split.length)); round++) {
    const slot = round % 2;
    const lengths = splits.map((split) => split[round] ?? 0);
    lengths.forEach((length, lane) => messages[lane].copy(lanes.buffer(lane, slot), 0, sent[lane], sent[lane] + length));
    lanes.update(slot, lengths);
    lengths.forEach((length, lane) => (sent[lane] += length));
  }
  return messages.map((_, lane) => lanes.digest(lane));
}

t.test('every length up to three blocks, in every lane', (t) => {
  const random = testRandom(t);
  const lanes = new Md5Lanes(256);
  for (let length = 0; length <= 3 * 64 + 1; length++) {
    const messages = [0, 1, 2, 3].map((lane) => randomBytes(random, (length + lane * 17) % 200));
    t.same(hashSideBySide(lanes, messages, random), messages.map(md5), `lengths ${messages.map((m) => m.length).join(', ')}`);
  }
  t.end();
});

t.test('long messages of different lengths, split at random, with the lanes reused, for one to four messages', (t) => {
  const random = testRandom(t);
  for (let count = 1; count <= 4; count++) {
    const lanes = new Md5Lanes(64 * 1024);
    for (let round = 0; round < 3; round++) {
      const messages = Array.from({ length: count }, () => randomBytes(random, random.integer(0, 600_000)));
      t.same(hashSideBySide(lanes, messages, random), messages.map(md5), `${count} messages, round ${round}: ${messages.map((m) => m.length).join(', ')} bytes`);
    }
  }
  t.end();
});

t.test('one lane alone, the others idle, leaves their messages intact', (t) => {
  const random = testRandom(t);
  const lanes = new Md5Lanes(1024);
  const messages = [0, 1, 2, 3].map(() => randomBytes(random, 1024));
  // Lane 2 hashes two slots while lanes 0, 1 and 3 wait after their first.
  messages.forEach((message, lane) => message.copy(lanes.buffer(lane, 0), 0, 0, 512));
  lanes.update(0, [512, 512, 512, 512]);
  messages[2].copy(lanes.buffer(2, 1), 0, 512, 1024);
  lanes.update(1, [0, 0, 512, 0]);
  for (const lane of [0, 1, 3]) messages[lane].copy(lanes.buffer(lane, 1), 0, 512, 1024);
  lanes.update(1, [512, 512, 0, 512]);
  t.same([0, 1, 2, 3].map((lane) => lanes.digest(lane)), messages.map(md5));
  t.end();
});

t.test('a message that ended takes no more bytes; sizes and slots are checked', (t) => {
  const lanes = new Md5Lanes(128);
  lanes.buffer(0, 0).fill(7);
  lanes.update(0, [10]);
  t.throws(() => lanes.update(1, [64]), TypeError, 'an update after the tail');
  t.same(lanes.digest(0), md5(Buffer.alloc(10, 7)));
  t.throws(() => lanes.update(0, [129]), TypeError, 'more than a slot');
  t.throws(() => lanes.buffer(4, 0), TypeError, 'no fifth lane');
  t.throws(() => lanes.buffer(0, 2), TypeError, 'no third slot');
  t.throws(() => new Md5Lanes(100), TypeError, 'a slot not made of whole blocks');
  t.end();
});

t.test('the native function refuses what it cannot hash, and then changes no state', (t) => {
  const { blocks } = createRequire(import.meta.url)('../../native/build/Release/md5_lanes.node') as { blocks: (...args: unknown[]) => void };
  const states = new Uint32Array(16).fill(1);
  const block = new Uint8Array(64);
  t.throws(() => blocks(), TypeError, 'no states');
  t.throws(() => blocks(new Uint32Array(15), block), TypeError, 'states of 15 words');
  t.throws(() => blocks(new Uint8Array(64), block), TypeError, 'states as bytes');
  t.throws(() => blocks(states, block, new Uint8Array(63)), TypeError, 'a lane that is not whole blocks');
  t.throws(() => blocks(states, block, 'bytes'), TypeError, 'a lane that is a string');
  t.throws(() => blocks(states, new Uint32Array(16)), TypeError, 'a lane of words');
  t.same(states, new Uint32Array(16).fill(1), 'no lane was hashed');
  blocks(states, undefined, block, null);
  t.same([...states.subarray(0, 4), ...states.subarray(8)], Array<number>(12).fill(1), 'lanes given as undefined or null are left as they were');
  t.not(states[4], 1, 'the lane given a block was hashed');
  t.end();
});
