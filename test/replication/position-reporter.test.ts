/**
 * How a cluster follower sends its position reports (daemon/replication/position-reporter.ts),
 * with a send the test answers by hand: one report in flight, moves meanwhile coalesced into one
 * report of the newest position, nothing sent for a position already sent unless forced, failures
 * logged once per change of state and carried by the next report, and a stop that cuts the report
 * in flight short.
 */
import t, { type Test } from 'tap';
import { PositionReporter } from '../../src/daemon/replication/position-reporter.js';
import { silentLogger, type Logger } from '../../src/common/logger.js';

interface Sent {
  position: number;
  signal: AbortSignal;
  answer: (error?: Error) => void;
}

function reporterOf(t: Test) {
  const state = { durable: 0 };
  const sent: Sent[] = [];
  const logged: string[] = [];
  const logger: Logger = { ...silentLogger, info: (_, message) => logged.push(`info ${message}`), warn: (_, message) => logged.push(`warn ${message}`) };
  const reporter = new PositionReporter({
    nodeId: 'node-b', logger, intervalMs: 3_600_000, durablePosition: () => state.durable,
    send: (_nodeId, position, signal) => new Promise<void>((resolve, reject) => {
      sent.push({ position, signal, answer: (error) => (error ? reject(error) : resolve()) });
    }),
  });
  t.teardown(() => reporter.stop());
  /** Answers the report in flight and waits until the reporter took the answer in. */
  const answer = async (error?: Error) => {
    sent[sent.length - 1].answer(error);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { reporter, state, sent, logged, answer };
}

t.test('one report in flight; the moves meanwhile go as one report of the newest position', async (t) => {
  const { reporter, state, sent, answer } = reporterOf(t);
  state.durable = 100;
  reporter.durableMoved();
  t.same(sent.map((report) => report.position), [100], 'a move is reported at once');
  for (const position of [200, 300, 400]) {
    state.durable = position;
    reporter.durableMoved();
  }
  t.equal(sent.length, 1, 'nothing more while it is in flight');
  await answer();
  t.same(sent.map((report) => report.position), [100, 400], 'then one report of the newest');
  await answer();
  reporter.durableMoved();
  t.equal(sent.length, 2, 'a position already sent is not sent again on a move');
  reporter.connected();
  t.same(sent.map((report) => report.position), [100, 400, 400], 'but is when the follower (re)connects, to say it is alive');
  await answer();
});

t.test('failures: logged once, carried by the next report; a stop aborts the report in flight', async (t) => {
  const { reporter, state, sent, logged, answer } = reporterOf(t);
  state.durable = 10;
  reporter.durableMoved();
  await answer(new Error('connection refused'));
  t.equal(sent.length, 1, 'a failed report is not retried by itself');
  state.durable = 20;
  reporter.durableMoved();
  await answer(new Error('connection refused'));
  t.same(logged, ['warn position reports do not reach the leader; the leader counts this node out of its majority until they do'], 'two failures, one line');
  state.durable = 30;
  reporter.durableMoved();
  await answer();
  t.same(sent.map((report) => report.position), [10, 20, 30], 'the next move carries the position');
  t.equal(logged[1], 'info position reports reach the leader again', 'and the recovery is logged');

  state.durable = 40;
  reporter.durableMoved();
  const inFlight = sent[sent.length - 1];
  sent[sent.length - 1].signal.addEventListener('abort', () => inFlight.answer(new Error('aborted')));
  await reporter.stop();
  t.equal(inFlight.signal.aborted, true, 'the stop aborted the report in flight and waited for it');
  state.durable = 50;
  reporter.durableMoved();
  reporter.connected();
  t.equal(sent.length, 4, 'a stopped reporter sends nothing');
  t.equal(logged.length, 2, 'and the aborted report is not logged as a failure');
});
