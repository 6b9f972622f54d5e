// What a client can send to the scavenge routes: bad parameters are coded 400s that change
// nothing, non-operators get 401, an empty JSON body is allowed, startFromChunk is accepted with a
// deprecation warning; and each scavenge option of the node takes effect.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import t from 'tap';
import { basicAuth, createUser } from '../helpers/auth.js';
import { call, completion, fillRemovable, startScavengeNode, streamEvents, type ScavengeNode } from '../helpers/scavenge-node.js';
import { openNodeScavenger } from '../../src/daemon/scavenge/open-scavenger.js';
import type { ScavengerSettings } from '../../src/daemon/daemon.js';
import { SCAVENGE_POINTS_STREAM } from '../../src/daemon/scavenge/scavenge-points.js';

const badParameters: Array<[string, string]> = [
  ['?threads=0', 'threads'], ['?threads=5', 'threads'], ['?threads=-1', 'threads'], ['?threads=abc', 'threads'], ['?threads=1.5', 'threads'],
  ['?throttlePercent=0', 'throttlePercent'], ['?throttlePercent=101', 'throttlePercent'], ['?throttlePercent=50&threads=2', 'throttlePercent'],
  ['?throttlePercent=x', 'throttlePercent'], ['?threshold=-2', 'threshold'], ['?threshold=2.5', 'threshold'], ['?threshold=', 'threshold'],
  ['?syncOnly=maybe', 'syncOnly'], ['?threads=1&threads=2', 'threads'], ['?startFromChunk=abc', 'startFromChunk'],
];

t.test('bad parameters are coded 400s naming the parameter, and nothing starts', async (t) => {
  const node = await startScavengeNode(t);
  for (const [query, parameter] of badParameters) {
    const reply = await call(node.url, 'POST', `/admin/scavenge${query}`);
    if (query === '?threshold=') {
      // An empty value means the default, as an absent one.
      t.equal(reply.status, 200, `${query}: the default threshold`);
      await completion(node.url, reply.body.scavengeId);
      continue;
    }
    t.equal(reply.status, 400, `${query} is refused`);
    t.equal(reply.body?.code, 'SVCDB_ERR_SCAVENGE_PARAMETER_INVALID', query);
    t.match(reply.body?.message, parameter, `${query}: the message names ${parameter}`);
  }
  t.equal(streamEvents(node.engine, SCAVENGE_POINTS_STREAM).length, 1, 'only the valid start wrote a point');
});

t.test('only admins and ops may start, follow or stop a scavenge; others get 401', async (t) => {
  const node = await startScavengeNode(t);
  const user = await createUser(node.url, { loginName: 'reader', password: 'secret1' });
  for (const [method, path] of [['POST', '/admin/scavenge'], ['GET', '/admin/scavenge/current'], ['DELETE', '/admin/scavenge/current']]) {
    const anonymous = await fetch(`${node.url}${path}`, { method });
    t.equal(anonymous.status, 401, `${method} ${path} without credentials`);
    const plain = await fetch(`${node.url}${path}`, { method, headers: { authorization: user } });
    t.equal(plain.status, 401, `${method} ${path} as a user outside $admins and $ops`);
    t.equal((await plain.json() as { code: string }).code, 'SVCDB_ERR_ACCESS_DENIED');
  }
  const wrong = await fetch(`${node.url}/admin/scavenge`, { method: 'POST', headers: { authorization: basicAuth('admin', 'wrong') } });
  t.equal(wrong.status, 401, 'wrong password');
  t.equal(streamEvents(node.engine, SCAVENGE_POINTS_STREAM).length, 0, 'nothing started');
  const ops = await fetch(`${node.url}/admin/scavenge`, { method: 'POST', headers: { authorization: basicAuth('ops', 'changeit') } });
  t.equal(ops.status, 200, 'an ops user may');
  await completion(node.url, (await ops.json() as { scavengeId: string }).scavengeId);
});

t.test('an empty JSON body is allowed; startFromChunk is accepted, ignored and warned about', async (t) => {
  const node = await startScavengeNode(t);
  const reply = await call(node.url, 'POST', '/admin/scavenge?startFromChunk=3', { headers: { 'content-type': 'application/json' }, body: '{}' });
  t.equal(reply.status, 200);
  t.same(Object.keys(reply.body), ['scavengeId'], 'the reply is {"scavengeId"}');
  await completion(node.url, reply.body.scavengeId);
  t.ok(node.logs.some((line) => line.level === 40 && /startFromChunk is deprecated/.test(String(line.msg))), 'a deprecation warning is logged');
  const unknown = await call(node.url, 'GET', '/admin/scavenge/not-an-id');
  t.equal(unknown.status, 404, 'GET of an id that is no scavenge');
  t.equal(unknown.body.code, 'SVCDB_ERR_SCAVENGE_NOT_FOUND');
});

async function mergeEvents(node: ScavengeNode): Promise<number> {
  const reply = await call(node.url, 'POST', '/admin/scavenge');
  const done = await completion(node.url, reply.body.scavengeId);
  t.equal(done.result, 'Success');
  return streamEvents(node.engine, `$scavenges-${reply.body.scavengeId}`).filter((event) => event.eventType === '$scavengeMergeCompleted').length;
}

t.test('each scavenge option of the node takes effect', async (t) => {
  let settings: ScavengerSettings | undefined;
  const node = await startScavengeNode(t, {
    options: { scavengeHistoryMaxAge: 2, scavengeBackendPageSize: 8, scavengeBackendCacheSize: 1024 * 1024, scavengeHashUsersCacheCapacity: 77 },
    openScavenger: (storage, given) => {
      settings = given;
      return openNodeScavenger(storage, given);
    },
  });
  await fillRemovable(node.url);
  t.ok(await mergeEvents(node) > 0, 'small scavenged chunks are merged by default');
  t.match(settings, { pageSizeBytes: 8 * 1024, cacheSizeBytes: 1024 * 1024, hashUsersCacheCapacity: 77, indexPath: join(node.directory, 'index') },
    'the backend sizes and the hash-users cache capacity reach the scavenger');
  const db = new Database(join(node.directory, 'index', 'scavenging', 'scavenging.db'), { readonly: true });
  t.teardown(() => db.close());
  t.equal(db.pragma('page_size', { simple: true }), 8 * 1024, '--scavenge-backend-page-size is the page size of scavenging.db');
  const [link] = streamEvents(node.engine, '$scavenges');
  const id = String(link.data).split('@$scavenges-')[1];
  t.equal(node.engine.getStreamMetadata(`$scavenges-${id}`).metadata.maxAgeSeconds, 2 * 86_400, '--scavenge-history-max-age on $scavenges-<id>');
  t.equal(node.engine.getStreamMetadata('$scavenges').metadata.maxAgeSeconds, 2 * 86_400, 'and on $scavenges');

  const unmerged = await startScavengeNode(t, { options: { disableScavengeMerging: true } });
  await fillRemovable(unmerged.url);
  t.equal(await mergeEvents(unmerged), 0, '--disable-scavenge-merging: no chunk is merged');
});
