// A park is answered once it is written. Regression: the 202 of a nack with Park came before the
// parked copy was in the parked stream (2 to 28 ms before), so a replayParked sent right after it
// replayed nothing and a client waiting for the message polled for ever.
import t from 'tap';
import { adminFetch } from '../helpers/auth.js';
import { startNode } from '../helpers/node.js';
import { appendEvents, groupUrl, mustCreateGroup, take } from '../helpers/subscriptions.js';

const ROUNDS = 200;

t.test(`a replayParked sent on the 202 of a park replays the message, ${ROUNDS} times out of ${ROUNDS}`, async (t) => {
  const node = await startNode(t);
  const [eventId] = await appendEvents(node.url, 's', 1);
  const missed: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // A group each round: its parked stream holds this round's park and nothing else.
    const group = `g${round}`;
    await mustCreateGroup(node.url, 's', group, round % 2 === 0 ? {} : { maxRetryCount: 0 });
    const [id] = (await take(node.url, 's', group, 1, { consumer: 'c' })).ids;
    // Odd rounds park by running out of retries: a Retry with maxRetryCount 0.
    const action = round % 2 === 0 ? 'Park' : 'Retry';
    const parked = adminFetch(`${groupUrl(node.url, 's', group)}/nack/${id}?action=${action}`, { method: 'POST', headers: { 'svc-connectionname': 'c' } });
    // Sent in the same turn as the 202 arrives, before anything else runs.
    const replayed = parked.then((reply) => {
      if (reply.status !== 202) throw new Error(`nack: ${reply.status}`);
      return adminFetch(`${groupUrl(node.url, 's', group)}/replayParked`, { method: 'POST' });
    });
    t.equal((await replayed).status, 200);
    const again = await take(node.url, 's', group, 1, { consumer: 'c' });
    if (again.ids[0] !== eventId) missed.push(round);
  }
  t.same(missed, [], 'the parked message was replayed in every round');
});
