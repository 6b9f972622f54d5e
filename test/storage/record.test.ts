import t from 'tap';
import { randomUUID } from 'node:crypto';
import {
  EventFlags, RecordKind, SystemKind, checkFrame, decodeRecord, encodeEventRecord, encodeSystemRecord,
  eventRecordBytesMax, peekEventKey, type EventRecordInput,
} from '../../src/storage/log/record.js';
import { framedEventBytes } from '../../src/storage/log/packed-event.js';
import { readInt64, writeInt64 } from '../../src/storage/log/int64.js';

function sampleEvent(overrides: Partial<EventRecordInput> = {}): EventRecordInput {
  return {
    logPosition: 2 ** 40 + 17,
    flags: EventFlags.data | EventFlags.isJson | EventFlags.transactionBegin,
    transactionPosition: 2 ** 40,
    transactionOffset: 3,
    eventNumber: 2 ** 35 + 1,
    timestamp: 1_700_000_000_123,
    eventId: randomUUID(),
    correlationId: randomUUID(),
    streamName: 'orders-ünïcode-😀',
    eventType: 'OrderPlaced',
    data: Buffer.from('{"a":1}'),
    metadata: Buffer.from([0, 1, 2, 255]),
    ...overrides,
  };
}

function encode(record: EventRecordInput): Buffer {
  const buffer = Buffer.alloc(eventRecordBytesMax(record.streamName, record.eventType, record.data, record.metadata));
  const length = encodeEventRecord(buffer, 0, record);
  return buffer.subarray(0, length);
}

t.test('an event record round-trips every field', async (t) => {
  const input = sampleEvent();
  const bytes = encode(input);
  t.equal(checkFrame(bytes, 0, bytes.length).framedLength, bytes.length);
  const decoded = decodeRecord(bytes, 0);
  t.same(decoded, { kind: RecordKind.event, ...input });
  t.same(peekEventKey(bytes, 0), { streamName: input.streamName, eventNumber: input.eventNumber });
});

t.test('the exact size the writer reserves equals the encoded size', async (t) => {
  for (const streamName of ['a', 'ünïcode-😀-stream', 'x'.repeat(500)]) {
    const input = sampleEvent({ streamName, data: Buffer.alloc(1234), metadata: Buffer.alloc(0) });
    const expected = framedEventBytes(streamName, { ...input, isJson: false });
    t.equal(encode(input).length, expected, streamName.slice(0, 20));
  }
});

t.test('empty data, empty metadata and negative transaction offsets survive', async (t) => {
  const input = sampleEvent({ data: Buffer.alloc(0), metadata: Buffer.alloc(0), transactionOffset: -1 });
  t.same(decodeRecord(encode(input), 0), { kind: RecordKind.event, ...input });
});

t.test('a system record round-trips', async (t) => {
  const data = Buffer.from(JSON.stringify({ epochNumber: 4 }));
  const bytes = encodeSystemRecord(4096, 123, SystemKind.epoch, data);
  t.equal(checkFrame(bytes, 0, bytes.length).framedLength, bytes.length);
  t.same(decodeRecord(bytes, 0), { kind: RecordKind.system, logPosition: 4096, timestamp: 123, systemKind: SystemKind.epoch, data });
  t.equal(peekEventKey(bytes, 0), undefined, 'no index key in a system record');
});

t.test('any flipped byte is detected by the frame check', async (t) => {
  const bytes = encode(sampleEvent());
  let detected = 0;
  for (let i = 0; i < bytes.length; i++) {
    const copy = Buffer.from(bytes);
    copy[i] ^= 0x5a;
    if (checkFrame(copy, 0, copy.length).problem) detected++;
  }
  t.equal(detected, bytes.length, 'every single-byte corruption is caught');
});

t.test('a frame cut short or with a wrong suffix is rejected as a length problem', async (t) => {
  const bytes = encode(sampleEvent());
  t.equal(checkFrame(bytes, 0, bytes.length - 1).problem, 'length');
  const copy = Buffer.from(bytes);
  copy.writeUInt32LE(7, copy.length - 4);
  t.equal(checkFrame(copy, 0, copy.length).problem, 'length');
  t.equal(checkFrame(Buffer.alloc(16), 0, 16).problem, 'length', 'zeroes are not a record');
});

t.test('int64 codec holds every safe integer, negative ones too', async (t) => {
  const buffer = Buffer.alloc(8);
  for (const value of [0, 1, -1, 2 ** 32 - 1, 2 ** 32, -(2 ** 32), Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 123456789012345]) {
    writeInt64(buffer, 0, value);
    t.equal(readInt64(buffer, 0), value);
    t.equal(buffer.readBigInt64LE(0), BigInt(value), `${value} matches the two's complement layout`);
  }
});
