import t from 'tap';
import { randomUUID } from 'node:crypto';
import { ByteSlab } from '../../src/daemon/projections/emit-bytes.js';
import { emittedEventId, emitterPrefix } from '../../src/daemon/projections/emitter.js';

const hex = (value: number, digits: number) => value.toString(16).padStart(digits, '0');

/** The ids of emitted events as first defined, with strings: ids already in logs must not change. */
function idByStrings(prefix: string, position: number, index: number): string {
  const low = position % 0x1_0000_0000;
  const seed = Number.parseInt(prefix.slice(0, 8), 16);
  const mixed = Math.imul((low ^ seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0, 0x85ebca6b) >>> 0;
  const p = hex(position, 14);
  return `${hex(mixed, 8)}-${p.slice(0, 4)}-4${p.slice(4, 7)}-${(8 | (index & 3)).toString(16)}${p.slice(7, 10)}-${p.slice(10, 14)}${prefix.slice(0, 4)}${hex((index >>> 2) & 0xffff, 4)}`;
}

t.test('emitted ids are those defined with strings, for small, large and chunk-crossing positions', async (t) => {
  const positions = [0, 1, 255, 4096, 268_435_456, 0xffff_ffff, 2 ** 32 + 17, 2 ** 40 + 12_345, Number.MAX_SAFE_INTEGER];
  for (let n = 0; n < 200; n++) positions.push(Math.floor(Math.random() * 2 ** 45));
  let checked = 0;
  for (const name of ['$by_category', '$by_event_type', 'user']) {
    for (const epoch of [0, 3]) {
      const prefix = emitterPrefix(name, epoch);
      for (const position of positions) {
        for (const index of [0, 1, 2, 3, 4, 7, 100, 70_000]) {
          const id = emittedEventId(prefix, position, index);
          if (id !== idByStrings(prefix, position, index)) t.fail(`${name}/${epoch} at ${position}#${index}: ${id}`);
          checked++;
        }
      }
    }
  }
  t.ok(checked > 1000, `${checked} ids compared`);
});

t.test('metadata and data written into shared blocks are the bytes JSON and UTF-8 give, and stay so', async (t) => {
  const slab = new ByteSlab();
  const written: Array<{ bytes: Buffer; expected: string }> = [];
  // Enough to fill several blocks, so views of earlier blocks must stay intact.
  for (let n = 0; n < 5000; n++) {
    const position = n * 7919 + (n % 3 === 0 ? 2 ** 41 : 0);
    const causedBy = randomUUID();
    const epoch = n % 4;
    written.push({
      bytes: slab.emittedMetadata(String(epoch), position, causedBy),
      expected: JSON.stringify({ $v: String(epoch), $c: position, $p: position, $causedBy: causedBy }),
    });
    const data = `${n}@stream-${n % 2 === 0 ? 'é€😀' : 'plain'}-${n}`;
    written.push({ bytes: slab.utf8(data), expected: data });
  }
  const wrong = written.filter(({ bytes, expected }) => !bytes.equals(Buffer.from(expected)));
  t.equal(wrong.length, 0, 'every view holds its own bytes');
  t.same(JSON.parse(written[2].bytes.toString('utf8')), JSON.parse(written[2].expected), 'the metadata is JSON');
});
