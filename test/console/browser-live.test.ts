// The console as a tool to watch a node, in a real headless Chromium against a real `svcdb serve`:
// first render with a stream of many events; charts with axes and units over the node's own
// history, which survives navigation; an idle node with a console open shows no reads; stream
// pages and the tail follow appends without a reload; redacted events carry a badge; faulted
// projections are marked with their reason and a query run leaves no projection behind; the
// statistics page; layouts at 380 px and keyboard access. Figures are printed as comments;
// screenshots go to test-artifacts/console/.
import t from 'tap';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { adminFetch } from '../helpers/auth.js';
import { openBrowser, screenshot, signedInPage, signIn } from '../helpers/browser.js';
import { runCli, startServer } from '../helpers/cli.js';
import { createProjection } from '../helpers/projections.js';
import { pollUntilAsync } from '../helpers/wait.js';

const BULK_EVENTS = 100_000;
const dir = t.testdir();
const dbPath = join(dir, 'db');
const server = await startServer(t, { dbPath, args: ['--insecure', '--enable-unix-socket', '--chunk-size', String(1024 * 1024), '--run-projections', 'All'] });
const { url } = server;
const chrome = await openBrowser(t);

interface Sample {
  sequence: number;
  readsPerSecond: number;
  requestsPerSecond: number;
  monitoringRequestsPerSecond: number;
  cpuPercent: number;
}

async function append(stream: string, events: Array<{ eventType: string; data: unknown }>): Promise<void> {
  const body = events.map((event) => ({ eventId: crypto.randomUUID(), ...event }));
  const response = await adminFetch(`${url}/streams/${encodeURIComponent(stream)}`, {
    method: 'POST', headers: { 'content-type': 'application/vnd.svc.events+json' }, body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`append to ${stream}: ${response.status} ${await response.text()}`);
}

async function samplesAfter(after: number, count: number): Promise<Sample[]> {
  let samples: Sample[] = [];
  await pollUntilAsync(`${count} statistics samples`, async () => {
    samples = ((await (await adminFetch(`${url}/stats/history?after=${after}`)).json()) as { samples: Sample[] }).samples;
    return samples.length >= count;
  }, { intervalMs: 250 });
  return samples;
}

async function newestSequence(): Promise<number> {
  const { samples } = (await (await adminFetch(`${url}/stats/history`)).json()) as { samples: Sample[] };
  return samples.at(-1)?.sequence ?? -1;
}

const average = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);

/** The number of points the named chart draws. */
async function pointCount(page: Page, chart: string): Promise<number> {
  const points = await page.getAttribute(`figure[data-name=${chart}] polyline`, 'points');
  return points ? points.trim().split(' ').length : 0;
}

await append('secret', [{ eventType: 'CardAdded', data: { card: '4111 1111 1111 1111' } }]);
// Enough events that the first chunk is completed (so `secret` can be redacted) and the stream is long.
for (let batch = 0; batch < BULK_EVENTS / 1000; batch++) {
  await append('bulk', Array.from({ length: 1000 }, (_, i) => ({ eventType: 'Measured', data: { n: batch * 1000 + i, value: Math.round(Math.random() * 1e6) } })));
}

t.test('first render of the dashboard and of a long stream', async (t) => {
  const page = await signedInPage(chrome, url);
  await page.goto('about:blank');
  const dashboardStart = Date.now();
  await page.goto(`${url}/web#/dashboard`);
  await page.waitForSelector('figure[data-name=appendsPerSecond] polyline[points*=" "]');
  const dashboardMs = Date.now() - dashboardStart;
  await page.goto('about:blank');
  const streamStart = Date.now();
  await page.goto(`${url}/web#/streams/bulk`);
  await page.waitForSelector('[data-name=event]');
  const streamMs = Date.now() - streamStart;
  t.equal(await page.locator('[data-name=event]').count(), 20, 'the newest page of the long stream');
  t.match(await page.locator('[data-name=event] header > a').first().textContent(), `${BULK_EVENTS - 1}@bulk`);
  t.comment(`first render with ${BULK_EVENTS} events in the log: dashboard with charts ${dashboardMs} ms, stream page ${streamMs} ms (load, sign-in from the tab's session, first data)`);
  await page.close();
});

t.test('the dashboard: charts with axes and units over the node\'s history, kept across navigation', async (t) => {
  const page = await signedInPage(chrome, url);
  await page.goto(`${url}/web#/dashboard`);
  await page.waitForSelector('[data-name=live-state][data-state=live]');
  await page.waitForFunction(() => (document.querySelector('figure[data-name=appendsPerSecond] polyline')?.getAttribute('points') ?? '').split(' ').length >= 5, undefined, { polling: 250 });
  const appends = page.locator('figure[data-name=appendsPerSecond]');
  const yLabels = await appends.locator('[data-name=y-axis] span').allTextContents();
  t.equal(yLabels.length, 3, 'the value axis has a top, a middle and zero');
  t.ok(yLabels.every((label) => label.endsWith('/s')), `in the series' unit: ${yLabels.join(', ')}`);
  t.equal(yLabels[2], '0/s', 'zero at the bottom');
  t.same(await appends.locator('[data-name=x-axis] span').allTextContents(), ['−5 min', '−2.5 min', 'now'], 'the time axis of the window');
  t.match(await page.locator('figure[data-name=diskFreeBytes] [data-name=y-axis] span').first().textContent(), /[0-9.]+ (B|KiB|MiB|GiB|TiB)$/, 'bytes in bytes');
  t.match(await page.locator('figure[data-name=flushMs] [data-name=y-axis] span').first().textContent(), / ms$/);
  await page.getByRole('button', { name: '1 min' }).click();
  t.same(await appends.locator('[data-name=x-axis] span').allTextContents(), ['−1 min', '−30 s', 'now'], 'another window');
  await page.getByRole('button', { name: '5 min' }).click();
  await screenshot(page, 'dashboard-charts');

  const before = await pointCount(page, 'appendsPerSecond');
  await page.click('nav a[href="#/streams"]');
  await page.waitForSelector('h1 >> text=Streams');
  await page.click('nav a[href="#/dashboard"]');
  await page.waitForSelector('figure[data-name=appendsPerSecond] polyline[points*=" "]');
  const after = await pointCount(page, 'appendsPerSecond');
  t.ok(after >= before, `back on the dashboard its first drawing has the history: ${after} points, ${before} before leaving`);
  const fresh = await signedInPage(chrome, url);
  await fresh.waitForSelector('figure[data-name=appendsPerSecond] polyline[points*=" "]');
  t.ok(await pointCount(fresh, 'appendsPerSecond') >= before, 'a new tab draws the minutes before it was opened');
  await fresh.close();
  await page.close();
});

t.test('an idle node watched by a console shows no reads; the console costs little', async (t) => {
  const page = await signedInPage(chrome, url);
  await page.waitForSelector('[data-name=live-state][data-state=live]');
  // Let the sign-in and the first loads pass, then watch the node while the console only watches it.
  const settled = await samplesAfter(await newestSequence(), 2);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const taskSeconds = async () => ((await cdp.send('Performance.getMetrics')).metrics.find((metric) => metric.name === 'TaskDuration')?.value ?? 0);
  const cpuBefore = await taskSeconds();
  const wallBefore = Date.now();
  const idle = await samplesAfter(settled.at(-1)!.sequence, 8);
  const consoleCpuPercent = ((await taskSeconds()) - cpuBefore) / ((Date.now() - wallBefore) / 1000) * 100;
  t.same(idle.map((sample) => sample.readsPerSecond), idle.map(() => 0), 'no reads while only the console watches');
  t.comment(`idle node, dashboard open: requests ${average(idle.map((sample) => sample.requestsPerSecond)).toFixed(2)}/s (the tail's long poll), `
    + `monitoring ${average(idle.map((sample) => sample.monitoringRequestsPerSecond)).toFixed(2)}/s (left out), node CPU ${average(idle.map((sample) => sample.cpuPercent)).toFixed(2)} %, `
    + `console CPU ${consoleCpuPercent.toFixed(2)} % of a core`);
  await page.close();
});

t.test('a stream page and the tail follow appends without a reload', async (t) => {
  await append('live-orders', [{ eventType: 'Placed', data: { id: 1 } }]);
  const page = await signedInPage(chrome, url);
  await page.goto(`${url}/web#/streams/live-orders`);
  await page.waitForSelector('[data-name=live-state][data-state=live]');
  t.equal(await page.locator('[data-name=event]').count(), 1);
  const appended = Date.now();
  await append('live-orders', [{ eventType: 'Paid', data: { id: 1 } }]);
  await page.waitForSelector('[data-name=event] .type >> text=Paid');
  t.comment(`stream page showed an event appended from outside after ${Date.now() - appended} ms`);
  t.equal(await page.locator('[data-name=event]').count(), 2, 'the new event is on the page');
  await screenshot(page, 'stream-live');

  await page.goto(`${url}/web#/streams/live-orders?from=0&direction=forward`);
  await page.waitForSelector('[data-name=live-state][data-state=older]');
  t.pass('a page that is not the newest says it does not change');

  await page.goto(`${url}/web#/dashboard`);
  await page.waitForSelector('.tail [data-name=live-state][data-state=live]');
  const tailed = Date.now();
  await append('live-orders', [{ eventType: 'Shipped', data: { id: 1 } }]);
  await page.waitForSelector('[data-name=tail] >> text=Shipped');
  t.comment(`the $all tail showed it after ${Date.now() - tailed} ms`);
  await page.close();
});

t.test('a redacted event carries a badge', async (t) => {
  const run = await runCli(['redact', '--db', dbPath, '--events', '0@secret']);
  t.equal(run.code, 0, 'svcdb redact succeeds', { stderr: run.stderr });
  await append('secret', [{ eventType: 'CardRemoved', data: { card: 'gone' } }]);
  const page = await signedInPage(chrome, url);
  await page.goto(`${url}/web#/streams/secret`);
  await page.waitForSelector('[data-name=event] .type >> text=CardRemoved');
  const badges = await page.locator('[data-name=event]').evaluateAll((events) => events.map((event) => [
    event.querySelector('.type')?.textContent, event.querySelector('[data-name=redacted]')?.textContent ?? null,
  ]));
  t.same(badges, [['CardRemoved', null], ['CardAdded', 'Redacted']], 'only the redacted event has the badge');
  t.match(await page.locator('[data-name=event]').nth(1).textContent(), /Its data was removed by redaction/, 'no empty data box');
  await screenshot(page, 'stream-redacted');
  await page.goto(`${url}/web#/event/secret/0`);
  await page.waitForSelector('dl.facts');
  t.equal(await page.locator('[data-name=redacted]').count(), 1, 'the event page marks it too');
  await page.close();
});

t.test('faulted projections are marked with their reason; a query run leaves no projection', async (t) => {
  await createProjection(url, 'continuous', 'breaks', "fromStream('boom').when({ Boom: () => { throw new Error('cannot handle Boom'); } });", { enabled: 'true' });
  await createProjection(url, 'continuous', 'quiet', "fromStream('nothing-here').when({ $init: () => ({}) });", { enabled: 'true' });
  const page = await signedInPage(chrome, url);
  await page.goto(`${url}/web#/projections`);
  await page.waitForSelector('tr[data-name=projection-breaks]');
  await append('boom', [{ eventType: 'Boom', data: {} }]);
  // No refresh: the list updates by itself.
  await page.waitForSelector('tr[data-name=projection-breaks] [data-health=faulted]');
  t.match(await page.textContent('tr[data-name=projection-breaks] .reason'), /cannot handle Boom/, 'the reason is on the row');
  t.match(await page.getAttribute('tr[data-name=projection-breaks]', 'class'), /health-faulted/);
  await page.waitForSelector('tr[data-name=projection-quiet] [data-health=running]');
  t.pass('a running projection looks different');
  await screenshot(page, 'projections-health');

  const names = async () => ((await (await adminFetch(`${url}/projections/any`)).json()) as { projections: Array<{ name: string }> }).projections.map((projection) => projection.name).sort();
  const before = await names();
  await page.goto(`${url}/web#/query`);
  await page.locator('form[name=query] textarea').fill("fromStream('live-orders').when({ $init: () => ({ count: 0 }), $any: (state) => { state.count += 1; return state; } });");
  await page.click('form[name=query] button[type=submit]');
  await page.waitForSelector('pre[aria-label=result]');
  t.match(await page.textContent('pre[aria-label=result]'), /"count": 3/);
  await page.waitForSelector('form[name=query] button[type=submit]:not([disabled])');
  t.same(await names(), before, 'the run left no projection in the list');
  await page.close();
});

t.test('the statistics page draws every series the node keeps and the parts of the node', async (t) => {
  const page = await signedInPage(chrome, url);
  await page.goto(`${url}/web#/stats`);
  await page.waitForSelector('figure[data-name=queue-StorageWriter]');
  await page.waitForSelector('table[data-name=queues] tbody tr');
  const charts = await page.locator('figure.chart').evaluateAll((figures) => figures.map((figure) => figure.getAttribute('data-name')));
  for (const name of ['cpuPercent', 'memoryBytes', 'connections', 'receivedBytesPerSecond', 'monitoringRequestsPerSecond', 'queue-HttpRequests']) t.ok(charts.includes(name), `a chart of ${name}`);
  t.ok(await page.locator('table[data-name=consumers] tbody tr').count() >= 1, 'the log consumers');
  await screenshot(page, 'stats');
  await page.close();
});

t.test('at 380 px every page fits the width; the main actions work from the keyboard', async (t) => {
  const narrow = await chrome.browser.newContext({ viewport: { width: 380, height: 800 } });
  t.teardown(() => narrow.close());
  const page = await narrow.newPage();
  page.on('pageerror', (error) => chrome.errors.push(`page error: ${error.message}`));
  await signIn(page, url);
  const pages = ['dashboard', 'stats', 'streams', 'streams/live-orders', 'subscriptions', 'projections', 'projections/breaks', 'query', 'scavenge', 'users', 'admin'];
  for (const route of pages) {
    await page.goto(`${url}/web#/${route}`);
    await page.waitForSelector('main h1');
    await page.waitForLoadState('networkidle').catch(() => undefined);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    t.ok(width <= 380, `${route} fits 380 px (${width} px wide)`);
    await screenshot(page, `narrow-${route.replace('/', '-')}`);
  }

  await page.goto(`${url}/web#/dashboard`);
  await page.waitForSelector('main h1');
  await page.keyboard.press('Tab');
  t.equal(await page.evaluate(() => document.activeElement?.className), 'skip', 'the first Tab reaches the skip link');
  await page.keyboard.press('Enter');
  t.equal(await page.evaluate(() => document.activeElement?.id), 'content', 'which moves the focus to the page');
  await page.keyboard.press('g');
  await page.keyboard.press('s');
  await page.waitForSelector('h1 >> text=Streams');
  t.equal(new URL(page.url()).hash, '#/streams', 'g s opens the streams');
  await page.keyboard.press('/');
  t.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'prefix', '/ goes to the search');

  await page.goto(`${url}/web#/streams/live-orders`);
  await page.focus('button[name=soft-delete]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[role=alertdialog] button.danger:focus');
  t.equal(await page.evaluate(() => document.activeElement?.textContent), 'Yes, delete it', 'the question takes the focus');
  await page.keyboard.press('Escape');
  await page.waitForSelector('[role=alertdialog]', { state: 'detached' });
  t.pass('Escape cancels');
  // Preact renders the answer on its next tick: wait for the focus to move, then check where it went.
  await page.waitForFunction(() => document.activeElement?.tagName === 'BUTTON');
  t.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'soft-delete', 'and the focus is back on the button');
  t.equal((await adminFetch(`${url}/streams/live-orders`, { headers: { accept: 'application/json' } })).status, 200, 'nothing was deleted');
});

t.test('no page reported an error', async (t) => {
  t.same(chrome.errors, []);
});
