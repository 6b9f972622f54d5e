// The console's projections pages in a real headless Chromium against a real `svcdb serve
// --run-projections All`: a partitioned projection created in the highlighting editor, its
// state and result per partition, stop, start, reset and delete with confirmations, its config,
// the one-time query page, and where `GET /projections` sends a browser. Each page is
// photographed into test-artifacts/console/.
import t from 'tap';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { adminFetch } from '../helpers/auth.js';
import { openBrowser, screenshot, signedInPage } from '../helpers/browser.js';
import { startServer } from '../helpers/cli.js';
import { projectionInfo, projectionState } from '../helpers/projections.js';
import { appendEvents } from '../helpers/subscriptions.js';
import { pollUntilAsync } from '../helpers/wait.js';

const dir = t.testdir();
const server = await startServer(t, { dbPath: join(dir, 'db'), args: ['--insecure', '--run-projections', 'All'] });
const { url } = server;
const chrome = await openBrowser(t);

const BALANCES = `fromAll()
  .partitionBy((event) => event.streamId.startsWith('account-') ? event.streamId : null)
  .when({
    $init: () => ({ total: 0 }),
    Deposited: (state, event) => { state.total += event.data.amount; return state; },
  })
  .transformBy((state) => ({ doubled: state.total * 2 }));
`;

async function deposit(stream: string, amounts: number[]): Promise<void> {
  await appendEvents(url, stream, amounts.length, (index) => ({ eventType: 'Deposited', data: { amount: amounts[index] } }));
}

async function text(page: Page, selector: string): Promise<string> {
  return (await page.textContent(selector))?.trim() ?? '';
}

/** Shows `partition` in the state or result panel and waits until it holds `expected`. */
async function showPartition(page: Page, kind: 'state' | 'result', partition: string, expected: unknown): Promise<void> {
  const wanted = JSON.stringify(expected, null, 2);
  await page.fill(`input[name=${kind}-partition]`, partition);
  await pollUntilAsync(`the ${kind} of ${partition} to show ${wanted}`, async () => {
    await page.click(`[data-name=${kind}-panel] button[type=submit]`);
    await page.waitForSelector(`pre[aria-label=${kind}]`);
    return await text(page, `pre[aria-label=${kind}]`) === wanted;
  }, { intervalMs: 200 });
}

async function waitForStatus(page: Page, pattern: RegExp): Promise<void> {
  await pollUntilAsync(`the projection's status to match ${pattern}`, async () => {
    await page.click('button[name=refresh]');
    await page.waitForSelector('[data-name=projection-status]');
    return pattern.test(await text(page, '[data-name=projection-status]'));
  }, { intervalMs: 200 });
}

t.test('a browser asking for /projections is sent to the projections page', async (t) => {
  const page = await signedInPage(chrome, url);
  await page.goto(`${url}/projections`);
  await page.waitForSelector('table[data-name=projections]');
  const address = new URL(page.url());
  t.same([address.pathname, address.hash], ['/web', '#/projections'], 'through /web/projections.htm to the console\'s page');
  await page.close();
});

t.test('a partitioned projection is created in the editor and shows its state and result per partition', async (t) => {
  await deposit('account-1', [10, 5]);
  await deposit('account-2', [7]);
  const page = await signedInPage(chrome, url);
  await page.goto(`${url}/web#/projections`);
  const form = page.locator('form[name=create-projection]');
  await form.locator('.editor .token-builtin >> nth=0').waitFor();
  await form.locator('input[name=name]').fill('balances');
  await form.locator('.editor textarea').fill(BALANCES);
  await form.locator('.editor .token-builtin >> text=partitionBy').waitFor();
  t.ok(await form.locator('.editor .token-string').count() > 0, 'the source is highlighted as it is typed');
  await screenshot(page, 'projection-create');
  await form.locator('button[type=submit]').click();
  await page.waitForSelector('text=Projection balances created.');
  await page.waitForSelector('table[data-name=projections] a >> text=balances');
  await screenshot(page, 'projections');

  await page.click('table[data-name=projections] a >> text=balances');
  await page.waitForSelector('h1 >> text=Projection balances');
  await waitForStatus(page, /^Running$/);
  await showPartition(page, 'state', 'account-1', { total: 15 });
  await showPartition(page, 'result', 'account-1', { doubled: 30 });
  await showPartition(page, 'state', 'account-2', { total: 7 });
  t.pass('each partition has its own state and result');
  await deposit('account-2', [3]);
  await showPartition(page, 'state', 'account-2', { total: 10 });
  t.pass('a new event shows in the state without reloading the page');
  await page.waitForSelector('.editor textarea[name=query]');
  t.equal(await page.inputValue('.editor textarea[name=query]'), BALANCES, 'the source is shown in the editor');
  await screenshot(page, 'projection');
  await page.close();
});

t.test('a projection is stopped, configured, started, reset and deleted', async (t) => {
  const page = await signedInPage(chrome, url);
  await page.goto(`${url}/web#/projections/balances`);
  await waitForStatus(page, /^Running$/);
  await page.click('button[name=stop]');
  await waitForStatus(page, /^Stopped/);
  t.match((await projectionInfo(url, 'balances')).status, /^Stopped/, 'the node stopped it');

  await page.waitForSelector('textarea[name=config]');
  const shown = JSON.parse(await page.inputValue('textarea[name=config]')) as Record<string, unknown>;
  t.match(shown, { checkpointAfterMs: Number, pendingEventsThreshold: Number, emitEnabled: false }, 'the config is shown as the node holds it');
  await page.fill('textarea[name=config]', JSON.stringify({ ...shown, checkpointHandledThreshold: 123 }, null, 2));
  await page.click('button[name=save-config]');
  await page.waitForSelector('text=Config saved.');
  const saved = await adminFetch(`${url}/projection/balances/config`).then((reply) => reply.json()) as Record<string, unknown>;
  t.equal(saved.checkpointHandledThreshold, 123, 'the new config is stored');

  await page.click('button[name=start]');
  await waitForStatus(page, /^Running$/);
  t.pass('started again');

  await page.click('button[name=reset]');
  t.match(await text(page, '.confirm p'), /Reset the projection 'balances'\?/);
  await page.click('.confirm button.danger');
  // The question goes once the node has answered: a status read before would be the old run's.
  await page.waitForSelector('.confirm', { state: 'detached' });
  await waitForStatus(page, /^Running$/);
  await showPartition(page, 'state', 'account-1', { total: 15 });
  t.same(await projectionState(url, 'balances', 'account-2'), { total: 10 }, 'after a reset the state is computed again from the start');
  await page.click('button[name=refresh]');
  await page.waitForSelector('[data-name=state-panel] button[type=submit]');
  t.equal(await page.inputValue('input[name=state-partition]'), 'account-1', 'a refresh keeps the partition typed');
  t.equal(await text(page, 'pre[aria-label=state]'), JSON.stringify({ total: 15 }, null, 2), 'and the state on show is still that partition\'s');

  await page.click('button[name=stop]');
  await waitForStatus(page, /^Stopped/);
  await page.click('button[name=delete-projection]');
  t.match(await text(page, '.confirm p'), /Delete the projection 'balances'\?/);
  await screenshot(page, 'projection-delete-confirm');
  await page.click('.confirm button.danger');
  await page.waitForSelector('text=Projection deleted.');
  t.equal((await adminFetch(`${url}/projection/balances`)).status, 404, 'the projection is gone');
  await page.close();
});

t.test('the query page runs a one-time query and shows its result', async (t) => {
  const page = await signedInPage(chrome, url);
  await page.goto(`${url}/web#/query`);
  await page.waitForSelector('.editor .token-builtin');
  await page.fill('.editor textarea', "fromAll()\n  .when({\n    $init: () => ({ deposits: 0 }),\n    Deposited: (state) => { state.deposits += 1; return state; },\n  });\n");
  await page.click('form[name=query] button[type=submit]');
  await page.waitForSelector('pre[aria-label=result]');
  t.same(JSON.parse(await text(page, 'pre[aria-label=result]')), { deposits: 4 }, 'the result counts every deposit');
  t.match(await text(page, '[data-name=query-status]'), /^Completed/);
  await screenshot(page, 'query');
  await page.close();
});

t.test('the browser reported no error and no policy violation', async (t) => {
  t.same(chrome.errors, []);
});
