// The check behind the crash tests finds each way a log can be wrong after a crash: a lost
// acknowledged event, a torn batch, an invented event, changed bytes, a rewritten past. A check
// that passed everything would make those tests prove nothing.
import t from 'tap';
import { StreamLedger, type ReadEvent, type SentEvent } from '../helpers/crash-ledger.js';

function sent(eventNumber: number): SentEvent {
  return {
    eventId: `00000000-0000-4000-8000-${String(eventNumber).padStart(12, '0')}`,
    eventType: 'CrashTest',
    data: Buffer.from(`{ "n" : ${eventNumber} }`),
    metadata: Buffer.alloc(0),
  };
}

function read(events: SentEvent[]): ReadEvent[] {
  return events.map((event, eventNumber) => ({ ...event, eventNumber }));
}

/** A ledger with batches [0,1] and [2,3,4] acknowledged and [5,6] in flight. */
function ledgerWithBatches(): { ledger: StreamLedger; events: SentEvent[] } {
  const ledger = new StreamLedger('s');
  const events = Array.from({ length: 7 }, (_, eventNumber) => sent(eventNumber));
  ledger.acknowledge(ledger.send(0, events.slice(0, 2)));
  ledger.acknowledge(ledger.send(2, events.slice(2, 5)));
  ledger.send(5, events.slice(5, 7));
  return { ledger, events };
}

t.test('a log with every acknowledged batch, with or without the one in flight, passes', async (t) => {
  const without = ledgerWithBatches();
  t.strictSame(without.ledger.check(read(without.events.slice(0, 5))), []);
  const withInFlight = ledgerWithBatches();
  t.strictSame(withInFlight.ledger.check(read(withInFlight.events)), []);
  t.equal(withInFlight.ledger.durableCount, 7, 'what a check found is durable from then on');
});

t.test('a lost acknowledged batch, a torn batch and an invented event are each found', async (t) => {
  const lost = ledgerWithBatches();
  t.match(lost.ledger.check(read(lost.events.slice(0, 2))), [/acknowledged batch of 3 is missing/]);
  const torn = ledgerWithBatches();
  t.match(torn.ledger.check(read(torn.events.slice(0, 6))), [/s\/6, event 1 of a batch of 2, is missing/]);
  const invented = ledgerWithBatches();
  t.match(invented.ledger.check(read([...invented.events, sent(7)])), [/s\/7 .* was never sent/]);
});

t.test('changed data, metadata, type, id or numbering are found', async (t) => {
  const changes: Array<[string, (event: ReadEvent) => void, RegExp]> = [
    ['data', (event) => (event.data = Buffer.from('{"n":3}')), /different data/],
    ['metadata', (event) => (event.metadata = Buffer.from('{}')), /different metadata/],
    ['type', (event) => (event.eventType = 'Other'), /of type Other/],
    ['id', (event) => (event.eventId = sent(99).eventId), /another event/],
    ['number', (event) => (event.eventNumber = 4), /event 3 of the read has number 4/],
  ];
  for (const [what, change, found] of changes) {
    const { ledger, events } = ledgerWithBatches();
    const log = read(events);
    change(log[3]);
    t.match(ledger.check(log), [found], `changed ${what}`);
  }
});

t.test('an event found after one crash must still be there, unchanged, after the next', async (t) => {
  const { ledger, events } = ledgerWithBatches();
  t.strictSame(ledger.check(read(events)), []);
  t.match(ledger.check(read(events.slice(0, 6))), [/s\/6 found before is now missing/]);
});
