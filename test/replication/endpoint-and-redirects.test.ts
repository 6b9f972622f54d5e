/**
 * The replication endpoint is for other nodes: anonymous requests and users outside `$ops` and
 * `$admins` are refused (401, DESIGN.md §6: denials are 401, the code says which), an operator
 * gets the handshake and a stream of frames that starts with the ongoing chunk's header and its
 * records from 0. On a replica, writes and reads that require the leader are answered 307 at the
 * same path on the leader, and administrative operations act on the replica itself.
 */
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { FrameReader, FrameType, readInt64, type Frame } from '../../src/daemon/replication/frames.js';
import { ADMIN_AUTH, OPS_AUTH, createUser } from '../helpers/auth.js';
import { appendEvent, nodeDirectories, startLeader, startReplica, waitForReplicas } from '../helpers/replication.js';

async function codeOf(response: Response): Promise<string> {
  return (await response.json() as { code: string }).code;
}

/** The frames of the log stream from `from` until the first heartbeat. */
async function framesUntilHeartbeat(url: string, from: number): Promise<Frame[]> {
  const controller = new AbortController();
  const response = await fetch(`${url}/replication/log?from=${from}`, { headers: { authorization: OPS_AUTH }, signal: controller.signal });
  if (response.status !== 200) throw new Error(`the log stream answered ${response.status}`);
  const reader = new FrameReader();
  const frames: Frame[] = [];
  for await (const piece of response.body!) {
    frames.push(...reader.push(Buffer.from(piece)));
    if (frames.some((frame) => frame.type === FrameType.heartbeat)) break;
  }
  controller.abort();
  return frames;
}

t.test('the replication endpoint admits operators only', async (t) => {
  const leader = await startLeader(t, nodeDirectories(t.testdir(), 'leader'));
  const handshake = (authorization?: string) => fetch(`${leader.url}/replication/handshake`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify({ epochs: [], writerCheckpoint: 0 }),
  });
  const anonymous = await handshake();
  t.equal(anonymous.status, 401, 'anonymous: 401');
  t.equal(await codeOf(anonymous), 'SVCDB_ERR_AUTH_REQUIRED');
  const anonymousLog = await fetch(`${leader.url}/replication/log?from=0`);
  t.equal(anonymousLog.status, 401, 'anonymous log stream: 401');
  await anonymousLog.arrayBuffer();
  const plain = await createUser(leader.url, { loginName: 'reader', password: 'secret' });
  const refused = await handshake(plain);
  t.equal(refused.status, 401, 'a user outside $ops and $admins: 401');
  t.equal(await codeOf(refused), 'SVCDB_ERR_ACCESS_DENIED', 'with the code that says the user may not');
  for (const [who, authorization] of [['ops', OPS_AUTH], ['admin', ADMIN_AUTH]]) {
    const admitted = await handshake(authorization);
    t.equal(admitted.status, 200, `${who} is admitted`);
    const reply = await admitted.json() as { commonPosition: number; chunkSizeBytes: number };
    t.equal(reply.commonPosition, 0, `${who}: an empty replica has position 0 in common`);
    t.equal(reply.chunkSizeBytes, 64 * 1024, `${who}: the leader says its chunk size`);
  }
});

t.test('the log stream: the chunk header, records from the position asked, a heartbeat', async (t) => {
  const leader = await startLeader(t, nodeDirectories(t.testdir(), 'leader'));
  await appendEvent(leader.url, 'framed', 100);
  const frames = await framesUntilHeartbeat(leader.url, 0);
  t.equal(frames[0].type, FrameType.chunkHeader, 'the ongoing chunk\'s header comes first');
  t.equal(frames[0].payload.length, 128, 'a whole chunk header');
  const records = frames.filter((frame) => frame.type === FrameType.records);
  t.ok(records.length > 0, 'records follow');
  t.equal(readInt64(records[0].payload, 0), 0, 'from position 0');
  const heartbeat = frames[frames.length - 1];
  const sent = records.reduce((total, frame) => total + frame.payload.length - 8, 0);
  t.equal(readInt64(heartbeat.payload, 0), sent, 'the heartbeat gives the leader\'s durable end: all the records sent');
  const torn = await fetch(`${leader.url}/replication/log?from=3`, { headers: { authorization: OPS_AUTH } });
  t.equal(torn.status, 400, 'a position inside a record is refused before anything is streamed');
  t.equal(await codeOf(torn), 'SVCDB_ERR_REPLICATION_PROTOCOL');
});

t.test('a replica redirects writes to its leader and keeps admin operations', async (t) => {
  const root = t.testdir();
  const leader = await startLeader(t, nodeDirectories(root, 'leader'));
  const replica = await startReplica(t, nodeDirectories(root, 'replica'), leader.url);
  await appendEvent(leader.url, 'seen', 10);
  await waitForReplicas(nodeDirectories(root, 'leader'), [{ directories: nodeDirectories(root, 'replica'), url: replica.url }]);
  const leaderOrigin = new URL(leader.url).origin;
  const write = await fetch(`${replica.url}/streams/seen?x=1`, {
    method: 'POST', redirect: 'manual', headers: { authorization: ADMIN_AUTH, 'content-type': 'application/json', 'svc-eventtype': 't' }, body: '{}',
  });
  t.equal(write.status, 307, 'an append on a replica: 307');
  t.equal(write.headers.get('location'), `${leaderOrigin}/streams/seen?x=1`, 'to the same path and query on the leader');
  const remove = await fetch(`${replica.url}/streams/seen`, { method: 'DELETE', redirect: 'manual', headers: { authorization: ADMIN_AUTH } });
  t.equal(remove.status, 307, 'a delete on a replica: 307');
  const user = await fetch(`${replica.url}/users/`, { method: 'POST', redirect: 'manual', headers: { authorization: ADMIN_AUTH }, body: '{}' });
  t.equal(user.status, 307, 'user management on a replica: 307');
  const read = await fetch(`${replica.url}/streams/seen`, { redirect: 'manual', headers: { authorization: ADMIN_AUTH, accept: 'application/vnd.svc.atom+json' } });
  t.equal(read.status, 200, 'a read is served by the replica');
  await read.arrayBuffer();
  const leaderRead = await fetch(`${replica.url}/streams/seen`, {
    redirect: 'manual', headers: { authorization: ADMIN_AUTH, accept: 'application/vnd.svc.atom+json', 'svc-requireleader': 'true' },
  });
  t.equal(leaderRead.status, 307, 'a read with Svc-RequireLeader: true: 307');
  const merge = await fetch(`${replica.url}/admin/mergeindexes`, { method: 'POST', redirect: 'manual', headers: { authorization: ADMIN_AUTH } });
  t.equal(merge.status, 200, 'an admin operation acts on the replica');
  await merge.arrayBuffer();
  const forwarded = await fetch(`${replica.url}/streams/forwarded`, {
    method: 'POST', redirect: 'manual',
    headers: { authorization: ADMIN_AUTH, 'content-type': 'application/json', 'svc-eventtype': 't', 'svc-eventid': randomUUID(), 'svc-requireleader': 'false' },
    body: '{"via":"replica"}',
  });
  t.equal(forwarded.status, 201, 'a write with Svc-RequireLeader: false is forwarded and answered as the leader answers');
  await forwarded.arrayBuffer();
  const refused = await fetch(`${replica.url}/streams/forwarded`, {
    method: 'POST', redirect: 'manual',
    headers: {
      authorization: ADMIN_AUTH, 'content-type': 'application/json', 'svc-eventtype': 't', 'svc-eventid': randomUUID(),
      'svc-requireleader': 'false', 'svc-expectedversion': '7',
    },
    body: '{}',
  });
  t.equal(refused.status, 400, 'a forwarded write the leader refuses gets the leader\'s refusal');
  t.equal(refused.headers.get('svc-currentversion'), '0', 'with the leader\'s headers');
  await refused.arrayBuffer();
  const onLeader = await fetch(`${leader.url}/streams/forwarded/0`, { headers: { authorization: ADMIN_AUTH, accept: 'application/json' } });
  t.same(await onLeader.json(), { via: 'replica' }, 'the forwarded event is on the leader');
  const followed = await fetch(`${leader.url}/streams/seen`, { headers: { authorization: ADMIN_AUTH, accept: 'application/vnd.svc.atom+json' } });
  t.equal(followed.status, 200, 'the leader still has the stream: the redirected delete did not run anywhere');
  await followed.arrayBuffer();
});
