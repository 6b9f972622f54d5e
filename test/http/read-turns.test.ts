// Clients' reads of the log take turns while other clients' appends wait for the writer
// (Engine.readTurn): every read route must end its turn, also when it fails or long polls, or
// the next read would wait for ever while appends go on.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { adminFetch } from '../helpers/auth.js';
import { startNode } from '../helpers/node.js';

const EVENT = { eventType: 'Turned', data: { pad: 'x'.repeat(200) } };

t.test('reads go on under an append load, and each ends its turn', async (t) => {
  const node = await startNode(t);
  const post = (stream: string) => adminFetch(`${node.url}/streams/${stream}`, {
    method: 'POST', headers: { 'content-type': 'application/vnd.svc.events+json' },
    body: JSON.stringify([{ eventId: randomUUID(), ...EVENT }]),
  });
  const get = (path: string, headers: Record<string, string> = {}) =>
    adminFetch(`${node.url}${path}`, { headers: { accept: 'application/json', ...headers } });
  for (let i = 0; i < 20; i++) t.equal((await post('turns')).status, 201);
  const group = await adminFetch(`${node.url}/subscriptions/turns/g`, {
    method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ startFrom: 0 }),
  });
  t.equal(group.status, 201, 'a persistent subscription group');

  // Sixteen appenders keep clients waiting for the writer, so reads take turns.
  let appending = true;
  let appended = 0;
  const appenders = Array.from({ length: 16 }, async (_, i) => {
    while (appending) {
      if ((await post(`load-${i}`)).status === 201) appended++;
    }
  });
  const statuses: number[] = [];
  for (let round = 0; round < 10; round++) {
    statuses.push((await get('/streams/turns/0/forward/20?embed=body')).status);
    statuses.push((await get('/streams/$all/head/backward/20?embed=body')).status);
    statuses.push((await get('/streams/missing-stream')).status);
    statuses.push((await get('/streams/$all/00000000000000000000000000000000/forward/5')).status);
    statuses.push((await get('/subscriptions/turns/g/1', { accept: 'application/vnd.svc.competingatom+json' })).status);
    // A long poll at the end of a stream ends its turn before it waits.
    statuses.push((await get('/streams/turns/9999/forward/1', { 'svc-longpoll': '1' })).status);
  }
  appending = false;
  await Promise.all(appenders);
  t.ok(appended > 0, 'the appends went on meanwhile');
  t.same([...new Set(statuses)].sort(), [200, 404], 'every read was answered: its page, or the missing stream\'s 404');
  t.equal(statuses.filter((status) => status === 404).length, 10, 'the missing stream each round');
});
