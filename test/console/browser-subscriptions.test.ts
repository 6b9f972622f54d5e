// The console's persistent subscriptions pages in a real headless Chromium against a real
// `svcdb serve`: a group created with its settings through the form, listed with status and lag,
// consumed through the API, a parked message seen and replayed, the settings updated and the
// group deleted after a confirmation. Each page is photographed into test-artifacts/console/.
import t from 'tap';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openBrowser, screenshot, signedInPage } from '../helpers/browser.js';
import { startServer } from '../helpers/cli.js';
import { ack, appendEvents, info, nack, parkedNumbers, take } from '../helpers/subscriptions.js';
import { pollUntilAsync } from '../helpers/wait.js';

const dir = t.testdir();
const server = await startServer(t, { dbPath: join(dir, 'db'), args: ['--insecure'] });
const { url } = server;
const chrome = await openBrowser(t);
const row = '[data-name="group-orders/billing"]';

async function cell(page: Page, selector: string): Promise<string> {
  return (await page.textContent(selector))?.trim() ?? '';
}

/** Clicks Refresh until `selector`'s text is `expected`: the page shows what it last loaded. */
async function refreshUntil(page: Page, selector: string, expected: string): Promise<void> {
  await pollUntilAsync(`${selector} to show ${expected}`, async () => {
    await page.click('button[name=refresh]');
    await page.waitForSelector(selector, { state: 'attached' });
    return await cell(page, selector) === expected;
  }, { intervalMs: 200 });
}

t.test('a group is created through the form with its settings and listed with status and lag', async (t) => {
  await appendEvents(url, 'orders', 5);
  const page = await signedInPage(chrome, url);
  await page.goto(`${url}/web#/subscriptions`);
  await page.waitForSelector('form[name=create-subscription]');
  const form = page.locator('form[name=create-subscription]');
  await form.locator('input[name=stream]').fill('orders');
  await form.locator('input[name=group]').fill('billing');
  await form.locator('input[name=readBatchSize]').fill('600');
  await form.locator('button[type=submit]').click();
  await form.locator('.error >> nth=0').waitFor();
  t.match(await form.locator('.error').allTextContents(), [/BufferSize \(500\) must be larger than ReadBatchSize \(600\)/], 'settings are checked before sending');
  await form.locator('input[name=readBatchSize]').fill('2');
  await form.locator('input[name=maxRetryCount]').fill('3');
  await form.locator('input[name=messageTimeoutMilliseconds]').fill('30000');
  await form.locator('select[name=namedConsumerStrategy]').selectOption('DispatchToSingle');
  await form.locator('input[name=resolveLinktos]').check();
  await form.locator('button[type=submit]').click();
  await page.waitForSelector('text=Group billing on orders created.');
  const config = (await info(url, 'orders', 'billing')).config as Record<string, unknown>;
  t.match(config, { readBatchSize: 2, maxRetryCount: 3, messageTimeoutMilliseconds: 30000, namedConsumerStrategy: 'DispatchToSingle', resolveLinktos: true, bufferSize: 500 });

  await page.waitForSelector(row);
  await refreshUntil(page, `${row} [data-name=lag]`, '5');
  t.pass('the lag counts the five events not processed yet');
  t.match(await cell(page, `${row} [data-name=status]`), /^(Live|Behind)$/, 'the group\'s status is shown');
  await screenshot(page, 'subscriptions');
  await page.close();
});

t.test('messages consumed and one parked through the API show on the group page', async (t) => {
  const taken = await take(url, 'orders', 'billing', 5, { consumer: 'worker-1' });
  t.same(taken.numbers, [0, 1, 2, 3, 4]);
  t.equal((await ack(url, 'orders', 'billing', taken.ids.filter((_, index) => index !== 2))).status, 202);
  t.equal((await nack(url, 'orders', 'billing', [taken.ids[2]], 'Park')).status, 202);
  await pollUntilAsync('the message to be parked', async () => (await parkedNumbers(url, 'orders', 'billing')).length === 1);

  const page = await signedInPage(chrome, url);
  await page.goto(`${url}/web#/subscriptions`);
  await page.waitForSelector(row);
  await refreshUntil(page, `${row} [data-name=lag]`, '0');
  t.pass('the lag falls to 0 once every event was handled');
  t.equal(await cell(page, `${row} [data-name=processed]`), '4', 'four were acknowledged, one parked');
  await page.waitForSelector(`${row} [data-name=parked] >> text=1`);
  t.pass('the list shows the parked message, without a refresh');
  await page.click(`${row} a`);
  await page.waitForSelector('h1 >> text=billing on orders');
  await refreshUntil(page, '[data-name=parked-count]', '1');
  t.equal(await cell(page, '[data-name=lag]'), '0');
  t.match(await cell(page, '[data-name=status]'), /^(Live|Behind)$/);
  await screenshot(page, 'subscription');

  await page.waitForSelector('[data-name=parked-list] tr');
  t.same(await page.locator('[data-name=parked-list] tr td:first-child').allTextContents(), ['2@orders'], 'the group page lists the parked message');
  await page.click('a[data-name=parked-messages]');
  await page.waitForSelector('[data-name=event]');
  t.same(await page.locator('[data-name=event] header > a:first-child').allTextContents(), ['2@orders'], 'the parked stream shows the parked event');
  await screenshot(page, 'subscription-parked');
  await page.close();
});

t.test('parked messages are replayed from the group page', async (t) => {
  const page = await signedInPage(chrome, url);
  await page.goto(`${url}/web#/subscriptions/orders/billing`);
  await page.waitForSelector('button[name=replay-parked]');
  await page.click('button[name=replay-parked]');
  const dialog = page.getByRole('alertdialog');
  t.match(await dialog.textContent(), /Replay the 1 parked messages of 'billing'\?/, 'the confirmation says what is replayed');
  await dialog.getByRole('button', { name: 'Yes, replay them' }).click();
  await page.waitForSelector('text=Replaying parked messages.');
  let replayed: number[] = [];
  await pollUntilAsync('the parked message to be offered again', async () => {
    const again = await take(url, 'orders', 'billing', 5, { consumer: 'worker-1' });
    if (again.ids.length > 0) await ack(url, 'orders', 'billing', again.ids);
    replayed = [...replayed, ...again.numbers];
    return replayed.length > 0;
  });
  t.same(replayed, [2], 'the parked event is offered to consumers again');
  await refreshUntil(page, '[data-name=parked-count]', '0');
  t.pass('the group page shows nothing parked');
  await page.close();
});

t.test('the settings are updated and the group deleted after a confirmation', async (t) => {
  const page = await signedInPage(chrome, url);
  await page.goto(`${url}/web#/subscriptions/orders/billing`);
  const form = page.locator('form[name=update-subscription]');
  await form.waitFor();
  t.equal(await form.locator('input[name=maxRetryCount]').inputValue(), '3', 'the form holds the group\'s settings');
  t.equal(await form.locator('select[name=namedConsumerStrategy]').inputValue(), 'DispatchToSingle');
  await form.locator('input[name=maxRetryCount]').fill('7');
  await form.locator('input[name=maxSubscriberCount]').fill('2');
  await form.locator('button[type=submit]').click();
  await page.waitForSelector('text=Settings saved.');
  const config = (await info(url, 'orders', 'billing')).config as Record<string, unknown>;
  t.match(config, { maxRetryCount: 7, maxSubscriberCount: 2, readBatchSize: 2, namedConsumerStrategy: 'DispatchToSingle' });

  await page.click('button[name=delete-subscription]');
  t.match(await page.textContent('.confirm p'), /Delete the subscription group 'billing' on the stream 'orders'\?/);
  await screenshot(page, 'subscription-delete-confirm');
  await page.click('.confirm button.danger');
  await page.waitForSelector('text=Group deleted.');
  await t.rejects(info(url, 'orders', 'billing'), /404/, 'the group is gone');
  await page.goto(`${url}/web#/subscriptions`);
  await page.waitForSelector('table[data-name=subscriptions]');
  t.equal(await page.locator(row).count(), 0, 'the list no longer shows it');
  await page.close();
});

t.test('the browser reported no error and no policy violation', async (t) => {
  t.same(chrome.errors, []);
});
