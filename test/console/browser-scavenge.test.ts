// The console's scavenge page in a real headless Chromium against a real `svcdb serve`: options
// checked before sending, a throttled scavenge started through the form and met running with its
// progress, stopped after a confirmation, started again (it resumes), followed by the page to its
// done state, and seen completed in the history with the space it reclaimed. The page is photographed into test-artifacts/console/.
import t from 'tap';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openBrowser, screenshot, signedInPage } from '../helpers/browser.js';
import { startServer } from '../helpers/cli.js';
import { call, fillRemovable } from '../helpers/scavenge-node.js';
import { pollUntilAsync } from '../helpers/wait.js';

const dir = t.testdir();
const server = await startServer(t, { dbPath: join(dir, 'db'), args: ['--insecure', '--chunk-size', '65536'] });
const { url } = server;
const chrome = await openBrowser(t);

async function startThroughForm(page: Page, threshold: string, throttlePercent: string): Promise<void> {
  const form = page.locator('form[name=scavenge]');
  await form.locator('input[name=threshold]').fill(threshold);
  await form.locator('input[name=throttlePercent]').fill(throttlePercent);
  await form.locator('button[type=submit]').click();
}

/** Clicks Refresh until the page's line about the running scavenge matches `pattern`. */
async function refreshUntilCurrent(page: Page, pattern: RegExp): Promise<string> {
  let text = '';
  await pollUntilAsync(`the scavenge page to show ${String(pattern)}`, async () => {
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    text = (await page.textContent('[data-name=scavenge-current]'))?.trim() ?? '';
    return pattern.test(text);
  }, { intervalMs: 200 });
  return text;
}

t.test('a scavenge is started, stopped and resumed from the page, and its history shows', async (t) => {
  await fillRemovable(url, 1500, 100);
  const page = await signedInPage(chrome, url);
  await page.goto(`${url}/web#/scavenge`);
  await page.waitForSelector('form[name=scavenge]');
  t.equal((await page.textContent('[data-name=scavenge-current]'))?.trim(), 'No scavenge is running.');

  const form = page.locator('form[name=scavenge]');
  await form.locator('input[name=threads]').fill('2');
  await startThroughForm(page, '-1', '50');
  await form.locator('.error >> nth=0').waitFor();
  t.same(await form.locator('.error').allTextContents(), ['throttle percent must be 100 for a multi-threaded scavenge'], 'checked before sending');
  t.equal((await call(url, 'GET', '/admin/scavenge/current')).body.scavengeId, '', 'nothing was started');

  // Throttled to 1%, the run rests about 99% of the time: long enough to meet it running.
  await form.locator('input[name=threads]').fill('1');
  await startThroughForm(page, '-1', '1');
  await page.waitForSelector('text=/Scavenge .* started\\./');
  const running = await refreshUntilCurrent(page, /^Running: /);
  const scavengeId = running.replace('Running: ', '');
  await page.waitForSelector('[data-name=scavenge-progress] progress');
  t.match(await page.textContent('[data-name=scavenge-progress]'), /^Phase \w+: \d+ of \d+ \w+ \(\d+ %\)/, 'the phase and its progress');
  t.equal((await call(url, 'GET', '/admin/scavenge/current')).body.scavengeId, scavengeId, 'the page names the running scavenge');
  await screenshot(page, 'scavenge-running');

  await page.click('button[name=stop-scavenge]');
  const dialog = page.getByRole('alertdialog');
  t.match(await dialog.textContent(), new RegExp(`Stop the scavenge ${scavengeId}\\?`), 'the confirmation names the scavenge');
  await dialog.getByRole('button', { name: 'Yes, stop it' }).click();
  await refreshUntilCurrent(page, /^No scavenge is running\.$/);
  t.pass('stopped');

  await startThroughForm(page, '', '');
  // Without a click: the page follows the run to its end and says how it ended.
  await page.waitForSelector('[data-name=scavenge-done] >> text=/ended: Success/');
  t.equal((await page.textContent('[data-name=scavenge-current]'))?.trim(), 'No scavenge is running.', 'the run is no longer shown running');
  t.equal(await page.locator('button[name=stop-scavenge]').count(), 0, 'and has no Stop button');
  t.match(await page.textContent('[data-name=scavenge-done]'), /reclaimed in /, 'the space reclaimed and the time taken');
  await screenshot(page, 'scavenge-done');
  const history = page.locator('[data-name=scavenge-history] tbody tr');
  await pollUntilAsync('the history to show a completed scavenge with its result', async () => {
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    const rows = await history.allTextContents();
    return rows.some((row) => row.includes('$scavengeCompleted') && row.includes('Success')) && rows.some((row) => row.includes('Stopped'));
  }, { intervalMs: 300 });
  const rows = await history.allTextContents();
  t.ok(rows.some((row) => row.includes(scavengeId) && row.includes('Stopped')), 'the stopped run is in the history');
  t.ok(rows.some((row) => row.includes('Success') && /[0-9.]+ (B|KiB|MiB)/.test(row)), 'the completed run shows the space it reclaimed');
  await screenshot(page, 'scavenge');
  t.same(chrome.errors, [], 'the browser reported no error');
  await page.close();
});
