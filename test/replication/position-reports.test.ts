/**
 * A cluster follower's position reports (POST /replication/position), with a real leader node and
 * a real replica engine whose follower has a node id: the leader's sink hears the replica's
 * durable position reach the leader's durable end after an append, and never a position the
 * replica does not hold durable. The route is for nodes: bad bodies get a coded 400, anonymous
 * requests 401, and a leader without a sink answers 204 and ignores the report.
 */
import t from 'tap';
import pino from 'pino';
import { Follower } from '../../src/daemon/replication/follower.js';
import { LeaderClient } from '../../src/daemon/replication/leader-client.js';
import { epochMarks } from '../../src/daemon/replication/replica-start.js';
import { ExpectedVersion } from '../../src/storage/streams/stream-metadata.js';
import type { Engine } from '../../src/storage/engine.js';
import { OPS_AUTH } from '../helpers/auth.js';
import { newEvent, openEngine, tempDirectory } from '../helpers/engine.js';
import { startApp, startNode } from '../helpers/node.js';

interface Report {
  nodeId: string;
  writerCheckpoint: number;
  /** The replica's durable end (writer.chk) when the leader heard the report. */
  replicaDurable: number;
}

function postPosition(url: string, body: unknown, authorization?: string): Promise<Response> {
  return fetch(`${url}/replication/position`, {
    method: 'POST', body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...(authorization && { authorization }) },
  });
}

t.test('the leader hears the replica\'s durable position reach its own end after an append', async (t) => {
  const reports: Report[] = [];
  let heard: ((report: Report) => void) | undefined;
  let replica: Engine | undefined;
  const leader = await startApp(t, {
    onPosition: (nodeId, writerCheckpoint) => {
      const report = { nodeId, writerCheckpoint, replicaDurable: replica?.replicaAppender().position().writerCheckpoint ?? -1 };
      reports.push(report);
      heard?.(report);
    },
  });
  /** The first report at or past `position`, from now on or already heard. */
  const reportReaching = (position: number) => new Promise<Report>((resolve) => {
    const found = reports.find((report) => report.writerCheckpoint >= position);
    if (found) return resolve(found);
    heard = (report) => {
      if (report.writerCheckpoint >= position) resolve(report);
    };
  });

  // Stopped before its engine closes: its teardown is registered first.
  let follower: Follower | undefined;
  t.teardown(() => follower?.stop());
  replica = await openEngine(tempDirectory(t), { replica: true });
  const engine = replica;
  follower = new Follower({
    leader: new LeaderClient(new URL(leader.url), { user: 'ops', password: 'changeit' }),
    appender: engine.replicaAppender(), epochs: () => epochMarks(engine.logBytes()), chunkSizeBytes: engine.logBytes().chunkSize,
    diverged: (position) => t.fail(`the replica diverged at ${position}`), logger: pino({ level: 'silent' }), nodeId: 'replica-1',
  });
  follower.start();

  const start = leader.engine.logBytes().durableEnd;
  const first = await reportReaching(start);
  t.equal(first.nodeId, 'replica-1', 'reports name the follower');

  await leader.engine.append('orders', ExpectedVersion.any, [newEvent(), newEvent()]);
  const end = leader.engine.logBytes().durableEnd;
  t.ok(end > start, 'the append moved the leader\'s durable end');
  const reached = await reportReaching(end);
  t.equal(reached.writerCheckpoint, end, 'the replica reports the leader\'s durable end');
  t.equal(engine.readStreamForward('orders', 0, 10).events.length, 2, 'and holds the events');
  t.same(reports.filter((report) => report.writerCheckpoint > report.replicaDurable), [], 'no report is ahead of the replica\'s durable end');

  // Alive while nothing moves: the second's tick reports the same position again.
  const count = reports.length;
  await new Promise<void>((resolve) => {
    heard = () => resolve();
  });
  t.equal(reports.length, count + 1, 'one more report');
  t.equal(reports[reports.length - 1].writerCheckpoint, end, 'of the same position');
});

t.test('the position route: coded 400 for bad bodies, 401 anonymous, 204 ignored without a sink', async (t) => {
  const heard: string[] = [];
  const leader = await startApp(t, { onPosition: (nodeId) => heard.push(nodeId) });
  const anonymous = await postPosition(leader.url, { nodeId: 'a', writerCheckpoint: 0 });
  t.equal(anonymous.status, 401, 'anonymous: 401');
  t.equal((await anonymous.json() as { code: string }).code, 'SVCDB_ERR_AUTH_REQUIRED');
  const bad: Array<[string, unknown]> = [
    ['no node id', { writerCheckpoint: 0 }],
    ['no position', { nodeId: 'a' }],
    ['an empty node id', { nodeId: '', writerCheckpoint: 0 }],
    ['a node id with a slash', { nodeId: 'a/b', writerCheckpoint: 0 }],
    ['a node id of 129 characters', { nodeId: 'a'.repeat(129), writerCheckpoint: 0 }],
    ['a negative position', { nodeId: 'a', writerCheckpoint: -1 }],
    ['a fractional position', { nodeId: 'a', writerCheckpoint: 1.5 }],
    ['an array', [{ nodeId: 'a', writerCheckpoint: 0 }]],
  ];
  for (const [what, body] of bad) {
    const response = await postPosition(leader.url, body, OPS_AUTH);
    t.equal(response.status, 400, `${what}: 400`);
    t.equal((await response.json() as { code: string }).code, 'SVCDB_ERR_HTTP_REQUEST_INVALID', `${what}: coded`);
  }
  t.same(heard, [], 'the sink heard none of them');
  const good = await postPosition(leader.url, { nodeId: 'node-2.example_A', writerCheckpoint: 128 }, OPS_AUTH);
  t.equal(good.status, 204, 'a good report: 204');
  t.same(heard, ['node-2.example_A'], 'which the sink heard');

  const plain = await startNode(t);
  const ignored = await postPosition(plain.url, { nodeId: 'a', writerCheckpoint: 0 }, OPS_AUTH);
  t.equal(ignored.status, 204, 'a node without a sink answers 204');
});
