// Cross-site request forgery in a real headless Chromium: an operator has signed in to the node
// through the browser's own Basic dialog (the browser now sends those credentials to the node by
// itself), then opens a page of another origin. That page's `<form method=POST
// enctype=text/plain>` to /projections/continuous?…&emit=yes and its `fetch(…/admin/shutdown,
// {method: 'POST', mode: 'no-cors', credentials: 'include'})` are refused: no projection is
// created and the node keeps running. The node's own pages still change it.
import http from 'node:http';
import { join } from 'node:path';
import { pino } from 'pino';
import t from 'tap';
import { Errors } from '../../src/common/errors.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { daemonOptions } from '../../src/daemon/options.js';
import { Engine } from '../../src/storage/engine.js';
import { adminFetch } from '../helpers/auth.js';
import { CHROMIUM_PATH } from '../helpers/browser.js';
import { WAIT_DEADLINE_MS } from '../helpers/wait.js';
import { chromium } from 'playwright-core';

const dir = t.testdir();
const options = daemonOptions({ db: join(dir, 'db'), httpPort: 0, runProjections: 'All', logLevel: 'warn' }, dir);
const daemon = await Daemon.start(options, { logger: pino({ level: 'silent' }), version: '9.9.9', openStorage: (engineOptions) => Engine.open(engineOptions) });
t.teardown(() => daemon.stop());
const node = `http://127.0.0.1:${daemon.address.port}`;

const PROJECTION = 'csrf';
const SOURCE = 'fromAll().when({$any: function (state, event) { emit("stolen", "Stolen", {}); }})//';
const createUrl = `${node}/projections/continuous?name=${PROJECTION}&type=js&emit=yes&enabled=yes`;

/** The attacker's page, served from another origin (`localhost` and another port, not 127.0.0.1). */
function attackerPage(kind: string): string {
  if (kind === 'form') {
    return `<!doctype html><form method="POST" enctype="text/plain" action="${createUrl}">`
      + `<input type="hidden" name='${SOURCE}' value=""></form><script>document.forms[0].submit()</script>`;
  }
  return '<!doctype html><script>'
    + `fetch('${node}/admin/shutdown', {method: 'POST', mode: 'no-cors', credentials: 'include'})`
    + '.then(() => { document.title = "sent"; }, () => { document.title = "failed"; });</script>';
}

const attacker = http.createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(attackerPage(new URL(request.url ?? '/', 'http://x').pathname.slice(1)));
});
await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
t.teardown(() => new Promise<void>((resolve) => attacker.close(() => resolve())));
const attackerOrigin = `http://localhost:${(attacker.address() as { port: number }).port}`;

const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, timeout: WAIT_DEADLINE_MS });
t.teardown(() => browser.close());
// The browser answers the node's Basic challenge with these, as it does once an operator typed
// them into its dialog.
const context = await browser.newContext({ httpCredentials: { username: 'admin', password: 'changeit', origin: node } });
context.setDefaultTimeout(WAIT_DEADLINE_MS);

async function projectionExists(): Promise<boolean> {
  return (await adminFetch(`${node}/projection/${PROJECTION}`)).status !== 404;
}

t.test('the operator signs in through the browser\'s Basic dialog', async (t) => {
  const page = await context.newPage();
  const response = await page.goto(`${node}/streams/%24all`);
  t.equal(response?.status(), 200, 'the stream page opens with the credentials the browser sent');
  await page.close();
});

t.test('a form of another origin cannot create a projection', async (t) => {
  const page = await context.newPage();
  const forged = page.waitForResponse((response) => response.url().startsWith(`${node}/projections/continuous`));
  await page.goto(`${attackerOrigin}/form`);
  const response = await forged;
  t.equal(response.status(), 400, 'the forged POST is refused');
  t.equal((await response.json() as { code: string }).code, Errors.httpCrossSiteRefused.code);
  t.equal(response.headers()['www-authenticate'], undefined, 'and the browser is not asked for credentials');
  t.notOk(await projectionExists(), 'no projection was created');
  await page.close();
});

t.test('a no-cors fetch of another origin cannot stop the node', async (t) => {
  const page = await context.newPage();
  const forged = page.waitForResponse((response) => response.url() === `${node}/admin/shutdown`);
  await page.goto(`${attackerOrigin}/fetch`);
  const response = await forged;
  t.equal(response.status(), 400, 'the forged POST is refused');
  await page.waitForFunction(() => document.title !== '');
  const ping = await fetch(`${node}/ping`);
  t.equal(ping.status, 200, 'the node is still running');
  await page.close();
});

t.test('the node\'s own pages and clients that are not browsers still change it', async (t) => {
  const page = await context.newPage();
  await page.goto(`${node}/web`);
  const sameOrigin = await page.evaluate(async (url) => {
    const response = await fetch(url, { method: 'POST', body: 'fromAll().when({})', headers: { 'content-type': 'text/plain' } });
    return response.status;
  }, createUrl.replace(`name=${PROJECTION}`, 'name=same-origin'));
  t.equal(sameOrigin, 201, 'a same-origin script creates a projection with a form type and the browser\'s credentials');
  const curl = await adminFetch(createUrl.replace(`name=${PROJECTION}`, 'name=from-curl'), {
    method: 'POST', body: 'fromAll().when({})', headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.equal(curl.status, 201, 'a client that sends no Origin (curl -d) creates one');
  await page.close();
});
