import t from 'tap';
import { readInt64, writeInt64 } from '../../src/storage/log/int64.js';

t.test('64-bit integers are written as BigInt64 little-endian would, and read back exactly', async (t) => {
  const values = [0, 1, 255, 256, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 2 ** 40 + 12_345, 2 ** 52 + 3, Number.MAX_SAFE_INTEGER,
    -1, -2, -255, -(2 ** 31), -(2 ** 32), -(2 ** 32) - 1, -(2 ** 40) - 7, Number.MIN_SAFE_INTEGER];
  for (let n = 0; n < 2000; n++) values.push(Math.floor((Math.random() - 0.5) * 2 * Number.MAX_SAFE_INTEGER), Math.floor(Math.random() * 2 ** 36));
  const shared = Buffer.from(new SharedArrayBuffer(16));
  const expected = Buffer.alloc(16);
  const wrong = values.filter((value) => {
    shared.fill(0xee);
    expected.fill(0xee);
    writeInt64(shared, 3, value);
    expected.writeBigInt64LE(BigInt(value), 3);
    return !shared.equals(expected) || readInt64(shared, 3) !== value;
  });
  t.same(wrong, [], `${values.length} values, the bytes around untouched`);
});
