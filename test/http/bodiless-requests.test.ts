// Routes that read no body ignore Content-Type: HTTP clients send
// `Content-Type: application/x-www-form-urlencoded` (or application/json) on every bodiless POST,
// and such a request is answered as the same request without the header (it was 415, or 400 for
// an empty JSON body). A body that is there still needs a type the route reads.
import { join } from 'node:path';
import { pino } from 'pino';
import t from 'tap';
import { Errors } from '../../src/common/errors.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { daemonOptions } from '../../src/daemon/options.js';
import { Engine } from '../../src/storage/engine.js';
import { adminFetch } from '../helpers/auth.js';
import { pollUntilAsync } from '../helpers/wait.js';

const dir = t.testdir();
const options = daemonOptions({ db: join(dir, 'db'), httpPort: 0, runProjections: 'All', logLevel: 'warn' }, dir);
const daemon = await Daemon.start(options, { logger: pino({ level: 'silent' }), version: '9.9.9', openStorage: (engineOptions) => Engine.open(engineOptions) });
t.teardown(() => daemon.stop());
const base = `http://127.0.0.1:${daemon.address.port}`;

/** What HTTP client libraries put on a request without a body. */
const BODILESS_TYPES = ['application/x-www-form-urlencoded', 'application/json', 'text/plain', 'application/octet-stream'];

interface Answer {
  status: number;
  body: string;
}

async function send(method: string, path: string, contentType?: string): Promise<Answer> {
  const response = await adminFetch(`${base}${path}`, { method, headers: contentType === undefined ? {} : { 'content-type': contentType } });
  return { status: response.status, body: await response.text() };
}

async function scavengeIdle(): Promise<void> {
  await pollUntilAsync('the scavenge to finish', async () => JSON.parse((await send('GET', '/admin/scavenge/current')).body).scavengeId === '');
}

t.test('POST /admin/scavenge with a Content-Type and an empty body starts a scavenge', async (t) => {
  for (const type of BODILESS_TYPES) {
    const answer = await send('POST', '/admin/scavenge', type);
    t.equal(answer.status, 200, `${type}: 200`);
    t.match(JSON.parse(answer.body), { scavengeId: /^[0-9a-f-]{36}$/ }, `${type}: the scavenge's id`);
    await scavengeIdle();
  }
});

t.test('DELETE /admin/scavenge/current answers with a Content-Type as without it', async (t) => {
  await scavengeIdle();
  const plain = await send('DELETE', '/admin/scavenge/current');
  for (const type of BODILESS_TYPES) {
    const answer = await send('DELETE', '/admin/scavenge/current', type);
    t.equal(answer.status, plain.status, `${type}: ${plain.status}, as without the header`);
    t.equal(JSON.parse(answer.body).code, JSON.parse(plain.body).code, `${type}: the same answer`);
  }
});

t.test('the other bodiless commands answer with a Content-Type as without it', async (t) => {
  const group = await adminFetch(`${base}/subscriptions/orders/workers`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
  t.equal(group.status, 201, 'a subscription group to command');
  const commands: Array<[string, string, (body: string) => unknown]> = [
    ['POST', '/admin/mergeindexes', (body) => t.match(JSON.parse(body), { mergeIndexesId: /^[0-9a-f-]{36}$/ })],
    ['POST', '/admin/reloadconfig', (body) => t.equal(body, '')],
    ['POST', '/users/ops/command/disable', (body) => t.match(JSON.parse(body), { loginName: 'ops', success: true })],
    ['POST', '/users/ops/command/enable', (body) => t.match(JSON.parse(body), { loginName: 'ops', success: true })],
    ['PUT', '/users/ops/command/disable', (body) => t.match(JSON.parse(body), { loginName: 'ops', success: true })],
    ['PUT', '/users/ops/command/enable', (body) => t.match(JSON.parse(body), { loginName: 'ops', success: true })],
    ['POST', '/projection/$by_category/command/enable', (body) => t.same(JSON.parse(body), { name: '$by_category' })],
    ['POST', '/projection/$by_category/command/disable', (body) => t.same(JSON.parse(body), { name: '$by_category' })],
    ['POST', '/subscriptions/orders/workers/replayParked', (body) => t.match(JSON.parse(body), { result: 'Success' })],
  ];
  for (const [method, path, check] of commands) {
    const plain = await send(method, path);
    t.equal(plain.status, 200, `${method} ${path} without a Content-Type: 200`);
    for (const type of BODILESS_TYPES) {
      const answer = await send(method, path, type);
      t.equal(answer.status, 200, `${method} ${path} with ${type}: 200`);
      check(answer.body);
    }
  }
});

t.test('a body that is there still needs a type the route reads', async (t) => {
  const response = await adminFetch(`${base}/admin/scavenge`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' });
  t.equal(response.status, 415);
  t.equal((await response.json() as { code: string }).code, Errors.httpMediaType.code);
  const json = await adminFetch(`${base}/users/ops/command/reset-password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' });
  t.equal(json.status, 400, 'a JSON body that does not parse is still refused');
});

t.test('POST /admin/shutdown with a Content-Type and an empty body stops the node', async (t) => {
  const answer = await send('POST', '/admin/shutdown', 'application/x-www-form-urlencoded');
  t.equal(answer.status, 200);
  const stopped = await daemon.stopped;
  t.equal(stopped.error, undefined, 'a clean stop');
});
