// The scavenge admin API on a real node (real engine, real scavenger, real HTTP server): each row
// of the reference's transition table, stop and resume, and what a run records in $scavenges.
import Database from 'better-sqlite3';
import t from 'tap';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  appendJson, call, completion, fillRemovable, Gate, gatedScavenger, startScavenge, startScavengeNode, streamEvents,
} from '../helpers/scavenge-node.js';
import { openNodeScavenger } from '../../src/daemon/scavenge/open-scavenger.js';
import { SCAVENGE_POINTS_STREAM } from '../../src/daemon/scavenge/scavenge-points.js';
import type { ScavengeCheckpoint } from '../../src/storage/maintenance/scavenge/types.js';

function chunkBytes(db: string): number {
  return readdirSync(db).filter((name) => name.startsWith('chunk-')).reduce((sum, name) => sum + statSync(join(db, name)).size, 0);
}

t.test('no stopped run and no unreached point: a new point is written, its chunk completed, and the run succeeds', async (t) => {
  // A small memory table puts index entries in files, which the run rewrites and reports. Some
  // chunks hold nothing but removable events: a scavenged chunk that keeps no record must still
  // cover its range (it used to be refused as ending at its start).
  const node = await startScavengeNode(t, { options: { maxMemTableSize: 100 } });
  await fillRemovable(node.url);
  const chunksBefore = node.engine.status().chunkCount;
  const writerBefore = node.engine.status().readableEnd;
  const bytesBefore = chunkBytes(join(node.directory, 'db'));
  const scavengeId = await startScavenge(node.url, '?threshold=0');
  t.match(scavengeId, /^[0-9a-f-]{36}$/, 'the reply names the scavenge');
  const done = await completion(node.url, scavengeId);
  t.equal(done.result, 'Success');
  t.ok(done.spaceSaved > 0, `space was reclaimed (${done.spaceSaved} bytes)`);
  t.ok(chunkBytes(join(node.directory, 'db')) < bytesBefore, 'the chunk files take less space');

  const points = streamEvents(node.engine, SCAVENGE_POINTS_STREAM);
  t.equal(points.length, 1, 'one point was written');
  t.same(points[0].data, { threshold: 0 }, 'with the threshold');
  const point = node.engine.readEvent(SCAVENGE_POINTS_STREAM, 0).event!;
  t.ok(point.logPosition >= writerBefore, 'the point is after everything written before the start');
  t.ok(node.engine.status().chunkCount > chunksBefore, 'the point\'s chunk was completed and a new one begun');

  const history = streamEvents(node.engine, `$scavenges-${scavengeId}`);
  t.same(history.map((event) => event.eventType).filter((type) => type === '$scavengeStarted' || type === '$scavengeCompleted'),
    ['$scavengeStarted', '$scavengeCompleted']);
  t.match(history[0].data, { scavengeId, nodeEndpoint: `127.0.0.1:${node.daemon.address.port}` });
  const completed = history[history.length - 1].data;
  t.match(completed, { scavengeId, result: 'Success', error: null, spaceSaved: done.spaceSaved, timeTaken: /^\d\d:\d\d:\d\d\.\d{7}$/ });
  t.ok(Number.isInteger(completed.maxChunkScavenged) && completed.maxChunkScavenged >= 0, 'the last chunk scavenged');
  const chunkEvents = history.filter((event) => event.eventType === '$scavengeChunksCompleted');
  t.ok(chunkEvents.length > 0, 'one event per chunk executed');
  t.match(chunkEvents[0].data, {
    scavengeId, chunkStartNumber: Number, chunkEndNumber: Number, timeTaken: String, wasScavenged: Boolean, spaceSaved: Number, nodeEndpoint: String,
  });
  t.ok(history.some((event) => event.eventType === '$scavengeIndexCompleted'), 'index files are reported');
  const links = streamEvents(node.engine, '$scavenges');
  t.same(links.map((link) => link.data), [`0@$scavenges-${scavengeId}`, `${history.length - 1}@$scavenges-${scavengeId}`],
    'the started and completed events are linked into $scavenges');
  const metadata = node.engine.getStreamMetadata(`$scavenges-${scavengeId}`).metadata;
  t.equal(metadata.maxAgeSeconds, 30 * 86_400, '--scavenge-history-max-age (30 days by default)');
  t.ok(node.logs.some((line) => /with weight/.test(String(line.msg))), 'the log has the "with weight" lines');
  const current = await call(node.url, 'GET', '/admin/scavenge/current');
  t.same(current.body, { scavengeId: '', scavengeLink: '' }, 'none runs any more');
});

t.test('none stopped and an unreached point exists: the run scavenges to it and writes none', async (t) => {
  const node = await startScavengeNode(t);
  await fillRemovable(node.url);
  // A point another node wrote (points replicate): in the log, never reached here.
  await node.engine.append(SCAVENGE_POINTS_STREAM, -1, [{ eventId: crypto.randomUUID(), eventType: '$scavengePoint', data: Buffer.from('{"threshold":-1}'), metadata: Buffer.alloc(0), isJson: true }]);
  await node.engine.completeActiveChunk();
  await appendJson(node.url, 'later', 10);
  const scavengeId = await startScavenge(node.url, '?threshold=5');
  t.equal((await completion(node.url, scavengeId)).result, 'Success');
  t.equal(streamEvents(node.engine, SCAVENGE_POINTS_STREAM).length, 1, 'no point was added');
  const state = openState(node);
  t.equal(state?.point.number, 0, 'the run went to the existing point');
  t.equal(state?.point.threshold, -1, 'with that point\'s threshold, not the request\'s');
  t.equal(state?.stage, 'Done');

  const again = await startScavenge(node.url, '?threshold=5');
  t.equal((await completion(node.url, again)).result, 'Success');
  t.equal(streamEvents(node.engine, SCAVENGE_POINTS_STREAM).length, 2, 'once reached, the next start writes point 1');
  t.same(streamEvents(node.engine, SCAVENGE_POINTS_STREAM)[1].data, { threshold: 5 });
});

t.test('syncOnly: no point is created when none is unreached; an unreached one is scavenged to', async (t) => {
  const node = await startScavengeNode(t);
  await fillRemovable(node.url, 100, 50);
  const none = await startScavenge(node.url, '?syncOnly=true');
  const done = await completion(node.url, none);
  t.match(done, { result: 'Success', spaceSaved: 0 }, 'nothing to do is not a failure');
  t.equal(node.engine.readStreamForward(SCAVENGE_POINTS_STREAM, 0, 10).events.length, 0, 'no point was created');

  const first = await startScavenge(node.url);
  await completion(node.url, first);
  const synced = await startScavenge(node.url, '?syncOnly=true');
  await completion(node.url, synced);
  t.equal(streamEvents(node.engine, SCAVENGE_POINTS_STREAM).length, 1, 'the reached point is not followed by another');
});

t.test('a run stopped with DELETE is recorded Stopped, refuses a second start meanwhile, and resumes at the next start', async (t) => {
  let gate: Gate | undefined = new Gate();
  const node = await startScavengeNode(t, { openScavenger: gatedScavenger(() => gate) });
  await fillRemovable(node.url);
  const scavengeId = await startScavenge(node.url);
  const current = await call(node.url, 'GET', '/admin/scavenge/current');
  t.match(current.body, { scavengeId, scavengeLink: `/admin/scavenge/${scavengeId}`, phase: String, chunksDone: Number, spaceSaved: Number });

  const second = await call(node.url, 'POST', '/admin/scavenge');
  t.equal(second.status, 400, 'a second start while one runs');
  t.equal(second.body.code, 'SVCDB_ERR_SCAVENGE_ALREADY_RUNNING');
  t.match(second.body.message, scavengeId, 'naming the running scavenge');

  const stats = await call(node.url, 'GET', '/stats');
  t.match(stats.body.svc.scavenge, { scavengeId, running: 1, scavengesStarted: 1 }, '/stats shows the running scavenge');
  const metrics = await call(node.url, 'GET', '/metrics');
  t.match(metrics.text, /^svcdb_scavenge_running 1$/m, '/metrics too');

  const unknown = await call(node.url, 'DELETE', '/admin/scavenge/00000000-0000-0000-0000-000000000000');
  t.equal(unknown.status, 404, 'an unknown id');
  t.equal(unknown.body.code, 'SVCDB_ERR_SCAVENGE_NOT_FOUND');

  const stop = await call(node.url, 'DELETE', '/admin/scavenge/current');
  t.equal(stop.status, 200, 'answered once stopped');
  t.equal(stop.body, scavengeId, 'the body is the id as a JSON string');
  t.match(await completion(node.url, scavengeId), { result: 'Stopped' });
  t.not(openState(node)?.stage, 'Done', 'the checkpoint keeps the stage to resume from');
  t.equal((await call(node.url, 'DELETE', '/admin/scavenge/current')).status, 404, 'nothing left to stop');

  gate = undefined;
  const resumed = await startScavenge(node.url);
  t.not(resumed, scavengeId, 'the resumed run has its own id');
  t.equal((await completion(node.url, resumed)).result, 'Success');
  t.equal(streamEvents(node.engine, SCAVENGE_POINTS_STREAM).length, 1, 'it resumed to the same point: none was written');
  t.equal(openState(node)?.stage, 'Done');
  const links = streamEvents(node.engine, '$scavenges');
  t.equal(links.length, 4, 'both runs linked their start and end');
});

t.test('a start while a redaction holds the chunk-switch lock is refused and changes nothing', async (t) => {
  const node = await startScavengeNode(t);
  await fillRemovable(node.url, 100, 50);
  const hold = node.engine.takeChunkSwitchLock('redaction');
  const refused = await call(node.url, 'POST', '/admin/scavenge');
  t.equal(refused.status, 409);
  t.equal(refused.body.code, 'SVCDB_ERR_CHUNK_SWITCH_LOCKED');
  t.match(refused.body.message, 'redaction');
  t.equal(node.engine.readStreamForward(SCAVENGE_POINTS_STREAM, 0, 10).events.length, 0, 'no point was written');
  t.same((await call(node.url, 'GET', '/admin/scavenge/current')).body, { scavengeId: '', scavengeLink: '' });
  node.engine.releaseChunkSwitchLock(hold);
  const scavengeId = await startScavenge(node.url);
  t.equal((await completion(node.url, scavengeId)).result, 'Success', 'once released, a start goes ahead');
});

t.test('a run that fails is recorded Failed, and the next start resumes it', async (t) => {
  let failNext = true;
  const node = await startScavengeNode(t, {
    openScavenger: (storage, settings) => {
      const real = openNodeScavenger(storage, settings);
      return {
        checkpoint: () => real.checkpoint(),
        close: () => real.close(),
        run: async (options) => {
          if (!failNext) return real.run(options);
          failNext = false;
          // The fault strikes once the run has saved its first stage, as a disk error would.
          const observer = options.observer;
          const controller = new AbortController();
          return real.run({ ...options, signal: controller.signal, observer: { ...observer, stageStarted: (stage) => { observer?.stageStarted?.(stage); controller.abort(); } } })
            .then(() => { throw new Error('EIO: i/o error, write'); });
        },
      };
    },
  });
  await fillRemovable(node.url);
  const failed = await startScavenge(node.url);
  t.match(await completion(node.url, failed), { result: 'Failed', error: /EIO/ });
  t.not(openState(node)?.stage, 'Done');
  const resumed = await startScavenge(node.url);
  t.equal((await completion(node.url, resumed)).result, 'Success');
  t.equal(streamEvents(node.engine, SCAVENGE_POINTS_STREAM).length, 1, 'the failed run was resumed to its point');
});

function openState(node: { daemon: unknown; directory: string }): ScavengeCheckpoint | undefined {
  return readCheckpointFile(join(node.directory, 'index', 'scavenging', 'scavenging.db'));
}

function readCheckpointFile(file: string): ScavengeCheckpoint | undefined {
  const db = new Database(file, { readonly: true });
  try {
    const row = db.prepare('SELECT value FROM Checkpoint WHERE key = 0').get() as { value: string } | undefined;
    if (!row) return undefined;
    const value = JSON.parse(row.value) as { scavengePoint: ScavengeCheckpoint['point']; checkpointStage: ScavengeCheckpoint['stage'] };
    return { point: value.scavengePoint, stage: value.checkpointStage };
  } finally {
    db.close();
  }
}
