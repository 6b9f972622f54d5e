import t from 'tap';
import { RecentStrings } from '../../src/storage/log/recent-strings.js';

t.test('gives the string of the bytes asked for, whatever was kept before in its slot', async (t) => {
  const names = ['', 'a', 'b', 'orders-1', 'orders-2', 'orders-3', 'ordert-1', 'é€😀-x', 'x'.repeat(64), 'y'.repeat(64), 'z'.repeat(65), 'Type0', 'Type1'];
  for (let n = 0; n < 300; n++) names.push(`cat${n % 10}-${n}`);
  const encoded = names.map((name) => Buffer.from(name, 'utf8'));
  // All the names side by side in one buffer, read at their offsets in a scrambled order.
  const buffer = Buffer.concat(encoded);
  const starts: number[] = [];
  for (let i = 0, at = 0; i < encoded.length; at += encoded[i].length, i++) starts.push(at);
  const recent = new RecentStrings(4, 64);
  const wrong: string[] = [];
  let reads = 0;
  for (let round = 0; round < 20; round++) {
    for (let k = 0; k < names.length; k++) {
      const i = (k * 7919 + round * 31) % names.length;
      reads++;
      if (recent.read(buffer, starts[i], encoded[i].length) !== names[i]) wrong.push(names[i]);
    }
  }
  t.same(wrong, [], `${reads} reads through 4 slots, every one the string of its bytes`);
  const first = recent.read(buffer, starts[3], encoded[3].length);
  t.equal(recent.read(Buffer.from('orders-1'), 0, 8), first, 'the same bytes elsewhere give the kept string');
  t.throws(() => new RecentStrings(3, 8), RangeError, 'slots must be a power of two');
});
