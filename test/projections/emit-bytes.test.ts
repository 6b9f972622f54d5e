import t from 'tap';
import { randomUUID } from 'node:crypto';
import { EmittedEventPacker, emittedEventId, isEmittedEventId } from '../../src/daemon/projections/emit-bytes.js';
import { emitterPrefix } from '../../src/daemon/projections/emitter.js';
import { LinkEmit } from '../../src/daemon/projections/system-projections.js';
import { PackedEvent, bodyBytes } from '../../src/storage/log/packed-event.js';
import { decodeRecord, decodeRecordOnDemand, encodeEventRecord, encodePackedEventRecord, eventRecordBytesMax, type EventRecord } from '../../src/storage/log/record.js';
import { framedEventBytes } from '../../src/storage/log/packed-event.js';

const hex = (value: number, digits: number) => value.toString(16).padStart(digits, '0');

/** An event as the projections read it from the log's shared memory (id and data in its bytes). */
function eventInSharedMemory(eventId: string, eventNumber: number, streamName: string): EventRecord {
  const data = Buffer.from('{}');
  const metadata = Buffer.alloc(0);
  const memory = Buffer.from(new SharedArrayBuffer(eventRecordBytesMax(streamName, 'E', data, metadata)));
  encodeEventRecord(memory, 0, {
    logPosition: 0, flags: 0, transactionPosition: 0, transactionOffset: 0, eventNumber, timestamp: 0,
    eventId, correlationId: '00000000-0000-0000-0000-000000000000', streamName, eventType: 'E', data, metadata,
  });
  return decodeRecordOnDemand(memory, 0) as EventRecord;
}

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

t.test('an emitted id is told from the ids of other projections, other causes and clients', async (t) => {
  const mine = emitterPrefix('user', 0);
  const other = emitterPrefix('other', 0);
  for (const position of [0, 4096, 2 ** 32 + 17, 2 ** 40 + 12_345]) {
    for (const index of [0, 3, 100, 70_000]) {
      const id = emittedEventId(mine, position, index);
      t.ok(isEmittedEventId(mine, position, id), `its own at ${position}#${index}`);
      t.ok(isEmittedEventId(mine, position, id.toUpperCase()), `its own at ${position}#${index}, in capitals`);
      t.notOk(isEmittedEventId(mine, position + 1, id), `not for another cause than ${position}#${index}`);
      t.notOk(isEmittedEventId(mine, position, emittedEventId(other, position, index)), `not another projection's at ${position}#${index}`);
    }
  }
  t.notOk(isEmittedEventId(mine, 0, randomUUID()), 'not a client\'s');
  t.notOk(isEmittedEventId(mine, 0, 'not an id'), 'not a malformed id');
});

t.test('events packed into shared blocks hold the id, the UTF-8 data and the JSON metadata, and keep them', async (t) => {
  const packers = [0, 1, 2, 3].map((epoch) => ({ epoch, prefix: emitterPrefix('$by_category', epoch), packer: undefined as EmittedEventPacker | undefined }));
  for (const entry of packers) entry.packer = new EmittedEventPacker(entry.prefix, entry.epoch);
  const packed: Array<{ event: PackedEvent; id: string; data: string; metadata: string; isJson: boolean }> = [];
  // Enough to fill several blocks, so events packed into earlier blocks must stay intact.
  for (let n = 0; n < 5000; n++) {
    const { epoch, prefix, packer } = packers[n % 4];
    const position = n * 7919 + (n % 3 === 0 ? 2 ** 41 : 0);
    const index = n % 5;
    const causedBy = randomUUID();
    const sourceStream = `stream-${n % 2 === 0 ? 'é€😀' : 'plain'}-${n}`;
    const sourceNumber = n % 11 === 0 ? 2 ** 40 + n : n;
    const data = `${sourceNumber}@${sourceStream}`;
    const own = n % 7 !== 0;
    const metadata = own ? JSON.stringify({ $v: String(epoch), $c: position, $p: position, $causedBy: causedBy }) : `{"code":${n}}`;
    // Links made by system projections, from events in the log's memory; other emits with their data as text.
    const isLink = n % 3 === 0;
    const isJson = !isLink && n % 2 === 0;
    const source = isLink ? eventInSharedMemory(causedBy, sourceNumber, sourceStream) : { eventId: causedBy };
    const emit = isLink ? new LinkEmit(0, 'target', source as EventRecord) : { sourceIndex: 0, streamName: 'target', eventType: '$>', data, metadata: own ? '' : metadata, isJson };
    const event = packer!.pack(emit, position, index, source, own ? undefined : Buffer.from(metadata));
    packed.push({ event, id: idByStrings(prefix, position, index), data, metadata, isJson });
  }
  const wrong = packed.filter(({ event, id, data, metadata, isJson }) =>
    event.eventId !== id || !event.data.equals(Buffer.from(data)) || !event.metadata.equals(Buffer.from(metadata)) || event.isJson !== isJson || event.eventType !== '$>');
  t.equal(wrong.length, 0, 'every packed event holds its own id, data, metadata and flags');
  t.equal(packed.filter(({ event }) => event.data.toString('utf8').startsWith('1099511627')).length > 10, true, 'large event numbers among the links');
  t.equal(bodyBytes(packed[1].event), Buffer.byteLength(packed[1].data) + Buffer.byteLength(packed[1].metadata), 'its body size needs no views');
  t.same(JSON.parse(packed[1].event.metadata.toString('utf8')), JSON.parse(packed[1].metadata), 'the metadata is JSON');

  // The writer encodes each packed event into a record of the size it reserved for it.
  const fields = { logPosition: 7, flags: 0, transactionPosition: 7, transactionOffset: 0, eventNumber: 3, timestamp: 1, correlationId: randomUUID(), streamName: '$ce-stream' };
  const misencoded = packed.filter(({ event, id, data, metadata }) => {
    const record = Buffer.alloc(framedEventBytes(fields.streamName, event) + 9, 0xee);
    const framed = encodePackedEventRecord(record, 5, { ...fields, eventType: event.eventType }, event);
    const decoded = decodeRecord(record, 5) as EventRecord;
    return framed !== record.length - 9 || record[4] !== 0xee || record[record.length - 4] !== 0xee || decoded.eventId !== id ||
      !decoded.data.equals(Buffer.from(data)) || !decoded.metadata.equals(Buffer.from(metadata));
  });
  t.equal(misencoded.length, 0, 'every record holds the id, data and metadata, in exactly the bytes reserved for it');
});
