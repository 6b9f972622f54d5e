import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import t from 'tap';
import { crc32Of } from '../../src/storage/log/crc32.js';

t.test('crc32Of equals zlib for every length and alignment, short and long, in shared and ordinary memory', async (t) => {
  const bytes = randomBytes(2048);
  const shared = Buffer.from(new SharedArrayBuffer(bytes.length));
  bytes.copy(shared);
  let compared = 0;
  const differing: string[] = [];
  for (const buffer of [bytes, shared]) {
    for (let start = 0; start < 9; start++) {
      for (let length = 0; length <= 1200; length++) {
        const end = start + length;
        compared++;
        if (crc32Of(buffer, start, end) !== crc32(buffer.subarray(start, end))) differing.push(`${start}+${length}`);
      }
    }
  }
  t.same(differing, [], `${compared} ranges compared`);
  t.equal(crc32Of(Buffer.from('123456789'), 0, 9), 0xcbf43926, 'the CRC-32 check value');
  t.equal(crc32Of(Buffer.alloc(0), 0, 0), 0, 'empty');
});
