// The console's forms check what a user typed before anything is sent: metadata (exact 64-bit
// numbers, ACL roles, other properties kept), the append form, scavenge options, subscription
// settings and projection creation.
import t from 'tap';
import { appendBody } from '../../web/lib/append.js';
import { formOf, metadataOf, type MetadataForm } from '../../web/lib/metadata.js';
import { createPath, isFinished, projectionHealth } from '../../web/lib/projections.js';
import { scavengeQuery, scavengeRecord, DEFAULT_SCAVENGE_OPTIONS } from '../../web/lib/scavenge.js';
import { DEFAULT_SETTINGS, settingsErrors, settingsOf } from '../../web/lib/subscription-settings.js';
import { lagOf, parkedStream } from '../../web/lib/subscriptions.js';
import { isUuid, randomUuid } from '../../web/lib/uuid.js';

const emptyForm = (): MetadataForm => formOf('');

t.test('metadata: the form shows what is stored and writes it back exactly', async (t) => {
  const stored = '{"$maxAge":86400,"$tb":9223372036854775807,"$acl":{"$r":["$all"],"$w":"writer"},"custom":{"deep":[1,2]}}';
  const form = formOf(stored);
  t.same(form.numbers, { $maxAge: '86400', $maxCount: '', $tb: '9223372036854775807', $cacheControl: '' });
  t.same(form.acl, { $r: '$all', $w: 'writer', $d: '', $mr: '', $mw: '' });
  t.same(JSON.parse(form.custom), { custom: { deep: [1, 2] } });
  const written = metadataOf(form);
  t.ok(written.ok);
  if (written.ok) {
    t.match(written.json, /"\$tb":9223372036854775807[,}]/, '2^63-1 is written with every digit');
    t.match(written.json, /"\$maxAge":86400/);
    t.match(written.json, /"\$acl":\{"\$r":"\$all","\$w":"writer"\}/);
    t.match(written.json, /"custom":\{"deep":\[1,2\]\}/, 'other properties are kept');
  }
});

t.test('metadata: each field is checked and the errors say what to fix', async (t) => {
  const form = emptyForm();
  form.numbers.$maxCount = 'many';
  form.numbers.$maxAge = '0';
  form.numbers.$tb = '9223372036854775808';
  form.custom = '[1]';
  const checked = metadataOf(form);
  t.notOk(checked.ok);
  if (!checked.ok) {
    t.same(checked.errors, [
      'other properties must be a JSON object',
      '$maxAge must be at least 1',
      '$maxCount must be a whole number of events',
      '$tb must be at most 9223372036854775807',
    ]);
  }
  const reserved = emptyForm();
  reserved.custom = '{"$maxCount": 3}';
  const refused = metadataOf(reserved);
  t.same(refused.ok ? [] : refused.errors, ['set $maxCount in their own fields, not among other properties']);
  const broken = emptyForm();
  broken.custom = '{';
  const invalid = metadataOf(broken);
  t.match(invalid.ok ? '' : invalid.errors[0], /^other properties are not valid JSON/);
});

t.test('metadata: roles are split on commas, one role stays a string, empty fields are left out', async (t) => {
  const form = emptyForm();
  form.acl.$r = ' $admins , reader ';
  form.acl.$w = 'writer';
  form.numbers.$cacheControl = '007';
  const checked = metadataOf(form);
  t.same(checked.ok ? JSON.parse(checked.json) : undefined, { $cacheControl: 7, $acl: { $r: ['$admins', 'reader'], $w: 'writer' } });
  const none = metadataOf(emptyForm());
  t.same(none.ok ? none.json : undefined, '{}');
});

t.test('append: one event as a batch, or what to fix', async (t) => {
  const eventId = randomUuid();
  const ok = appendBody({ eventType: 'Placed', eventId, data: '{"a": 1}', metadata: '', expectedVersion: '' });
  t.same(ok.ok ? JSON.parse(ok.body) : undefined, [{ eventId, eventType: 'Placed', data: { a: 1 } }]);
  const withMetadata = appendBody({ eventType: 'Placed', eventId, data: '', metadata: '{"by": "x"}', expectedVersion: '3' });
  t.same(withMetadata.ok ? JSON.parse(withMetadata.body) : undefined, [{ eventId, eventType: 'Placed', data: {}, metadata: { by: 'x' } }]);
  const bad = appendBody({ eventType: ' ', eventId: 'nope', data: '{', metadata: '[', expectedVersion: '-3' });
  t.equal(bad.ok ? 0 : bad.errors.length, 5, 'type, id, data, metadata and expected version');
});

t.test('event ids are version 4 UUIDs, from any random source', async (t) => {
  const id = randomUuid();
  t.ok(isUuid(id));
  t.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  t.equal(randomUuid((bytes) => bytes.fill(0xff)), 'ffffffff-ffff-4fff-bfff-ffffffffffff');
  t.notOk(isUuid('0d7c1b2a-3f4e-4a5b-8c6d-7e8f9a0b1c2'));
});

t.test('scavenge options become the start request, checked as the node checks them', async (t) => {
  t.same(scavengeQuery(DEFAULT_SCAVENGE_OPTIONS), { ok: true, query: 'threads=1' });
  t.same(scavengeQuery({ threads: '2', threshold: '-1', throttlePercent: '100', syncOnly: true }),
    { ok: true, query: 'threads=2&threshold=-1&throttlePercent=100&syncOnly=true' });
  t.same(scavengeQuery({ threads: '5', threshold: '1.5', throttlePercent: '101', syncOnly: false }), {
    ok: false, errors: ['threads must be 1 to 4', 'threshold must be a whole number', 'throttle percent must be between 1 and 100'],
  });
  t.same(scavengeQuery({ ...DEFAULT_SCAVENGE_OPTIONS, threads: '2', throttlePercent: '50' }), { ok: false, errors: ['throttle percent must be 100 for a multi-threaded scavenge'] });
});

t.test('scavenge history rows come from the scavenge events $scavenges links to', async (t) => {
  const completed = { summary: '$scavengeCompleted', updated: 't', data: JSON.stringify({ scavengeId: 'id-1', result: 'Success', spaceSaved: 4096, timeTaken: '00:00:01.5', error: '' }) };
  t.same(scavengeRecord(completed), { scavengeId: 'id-1', type: '$scavengeCompleted', time: 't', result: 'Success', spaceSaved: 4096, timeTaken: '00:00:01.5', error: undefined });
  t.equal(scavengeRecord({ summary: '$>', updated: 't', data: '0@$scavenges-id' }), undefined, 'an unresolved link is no row');
  t.equal(scavengeRecord({ summary: 'x', updated: 't' }), undefined);
});

t.test('subscription settings are checked as the node checks them', async (t) => {
  t.same(settingsErrors(DEFAULT_SETTINGS), []);
  t.same(settingsErrors({ ...DEFAULT_SETTINGS, bufferSize: 10, readBatchSize: 20 }), ['BufferSize (10) must be larger than ReadBatchSize (20)']);
  t.same(settingsErrors({ ...DEFAULT_SETTINGS, liveBufferSize: 0 }), ['Live Buffer Size (0) must be positive']);
  t.same(settingsErrors({ ...DEFAULT_SETTINGS, startFrom: -2, namedConsumerStrategy: 'Random' }), [
    'startFrom (-2) must be -1 (the end of the stream), 0 or an event number', 'namedConsumerStrategy must be one of RoundRobin, DispatchToSingle, Pinned, PinnedByCorrelation',
  ]);
  t.same(settingsErrors({ ...DEFAULT_SETTINGS, minCheckPointCount: 600 }), ['minCheckPointCount (600) must not be larger than maxCheckPointCount (500)']);
  t.same(settingsErrors({ ...DEFAULT_SETTINGS, maxRetryCount: Number('x') }), ['maxRetryCount must be a whole number']);
  t.same(settingsOf({ bufferSize: 900, resolveLinktos: true, namedConsumerStrategy: 'Pinned', unknown: 1, readBatchSize: 'x' }),
    { ...DEFAULT_SETTINGS, bufferSize: 900, resolveLinktos: true, namedConsumerStrategy: 'Pinned' }, 'what the node reported, over the defaults');
  t.equal(lagOf({ eventStreamId: 's', groupName: 'g', status: 'Live', lastKnownEventNumber: 9, lastProcessedEventNumber: 4 }), 5);
  t.equal(lagOf({ eventStreamId: 's', groupName: 'g', status: 'Live' }), undefined);
  t.equal(parkedStream('orders', 'g1'), '$persistentsubscription-orders::g1-parked');
});

t.test('projections: the create path carries the mode and options', async (t) => {
  t.equal(createPath({ name: 'counter', mode: 'continuous', emit: true, enabled: true, trackEmittedStreams: false }),
    '/projections/continuous?type=JS&enabled=true&emit=true&name=counter&trackemittedstreams=false');
  t.equal(createPath({ name: '', mode: 'transient', emit: false, enabled: true, trackEmittedStreams: true }), '/projections/transient?type=JS&enabled=true&emit=false',
    'an unnamed query gets its name from the node');
  t.ok(isFinished('Completed'));
  t.ok(isFinished('Faulted'));
  t.ok(isFinished('Stopped (Enabled)'));
  t.notOk(isFinished('Running'));
  t.notOk(isFinished(undefined));
});

t.test('projections: how each is doing, for the list\'s marks', async (t) => {
  t.same(projectionHealth({ name: 'a', status: 'Faulted (Enabled)', stateReason: 'handler threw' }), { health: 'faulted', reason: 'handler threw' });
  t.same(projectionHealth({ name: 'a', status: 'Faulted' }), { health: 'faulted', reason: 'faulted, no reason given' }, 'a fault always says something');
  t.same(projectionHealth({ name: 'a', status: 'Running', progress: 42.25 }), { health: 'behind', reason: 'behind: 42.3 % of the log processed' });
  t.same(projectionHealth({ name: 'a', status: 'Running', progress: 99.5 }), { health: 'running', reason: '' }, 'at 99 % and more it keeps up');
  t.equal(projectionHealth({ name: 'a', status: 'Completed' }).health, 'completed');
  t.equal(projectionHealth({ name: 'a', status: 'Stopped', progress: 3 }).health, 'stopped', 'a stopped projection is not behind');
});
