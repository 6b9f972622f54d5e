// The dashboard's members in a real headless Chromium, with a leader and a read-only replica as
// real `svcdb serve` processes over plain HTTP (--insecure): the leader's dashboard lists itself
// and the replica with its lag, the replica's lists its leader and itself with its own lag.
// Photographed into test-artifacts/console/.
import t from 'tap';
import type { Page } from 'playwright-core';
import { openBrowser, screenshot, signedInPage } from '../helpers/browser.js';
import { appendEvent, nodeDirectories, startLeader, startReplica, waitForReplicas } from '../helpers/replication.js';

const root = t.testdir();
const leaderDirectories = nodeDirectories(root, 'leader');
const replicaDirectories = nodeDirectories(root, 'replica');
const leader = await startLeader(t, leaderDirectories, ['--insecure']);
const replica = await startReplica(t, replicaDirectories, leader.url, ['--insecure']);
for (let i = 0; i < 10; i++) await appendEvent(leader.url, 'members', 200);
await waitForReplicas(leaderDirectories, [{ directories: replicaDirectories, url: replica.url }]);
const chrome = await openBrowser(t);

/** The members table's rows as [state, lag], once their states are `states`. */
async function memberRows(page: Page, states: string[]): Promise<string[][]> {
  await page.waitForFunction((expected) => {
    const cells = [...document.querySelectorAll('[data-name=member-state]')].map((cell) => cell.textContent);
    return JSON.stringify(cells) === JSON.stringify(expected);
  }, states);
  return page.locator('[data-name=member]').evaluateAll((rows) => rows.map((row) => [
    row.querySelector('[data-name=member-state]')!.textContent ?? '', row.querySelector('[data-name=member-lag]')!.textContent ?? '',
  ]));
}

t.test('the leader\'s dashboard lists itself and its replica with the lag', async (t) => {
  const page = await signedInPage(chrome, leader.url);
  const rows = await memberRows(page, ['Leader', 'ReadOnlyReplica']);
  t.same(rows, [['Leader', '–'], ['ReadOnlyReplica', '0 B, 0 s']]);
  t.match(await page.textContent('[data-name=members]'), '127.0.0.1:', 'with the replica\'s address');
  await screenshot(page, 'dashboard-members-leader');
  await page.close();
});

t.test('the replica\'s dashboard lists its leader and itself with its own lag', async (t) => {
  const page = await signedInPage(chrome, replica.url);
  const rows = await memberRows(page, ['Leader', 'ReadOnlyReplica']);
  t.same(rows, [['Leader', '–'], ['ReadOnlyReplica', '0 B, 0 s']]);
  t.match(await page.textContent('[data-name=members]'), leader.url, 'with the leader\'s URL');
  await screenshot(page, 'dashboard-members-replica');
  await page.close();
});
