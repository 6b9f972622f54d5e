// The dashboard's members on a node of a cluster, in a real headless Chromium: a real node that is
// a member of a real three-member etcd cluster lists every member with its state, and shows the
// change when it resigns. Photographed into test-artifacts/console/.
import t from 'tap';
import type { Page } from 'playwright-core';
import { ConsoleAssets, defaultConsoleDirectory } from '../../src/daemon/services/console-assets.js';
import { ADMIN_AUTH } from '../helpers/auth.js';
import { openBrowser, screenshot, signedInPage } from '../helpers/browser.js';
import { threeMembers } from '../helpers/cluster-http.js';

/** The states of the members table's rows, once they are `states`. */
async function memberStates(page: Page, states: string[]): Promise<string[]> {
  await page.waitForFunction((expected) => {
    const cells = [...document.querySelectorAll('[data-name=member-state]')].map((cell) => cell.textContent);
    return JSON.stringify(cells) === JSON.stringify(expected);
  }, states);
  return page.locator('[data-name=member-state]').allTextContents();
}

t.test('the dashboard of a cluster member lists every member with its state', async (t) => {
  const assets = ConsoleAssets.load(defaultConsoleDirectory());
  if (!assets) throw new Error('the web console is not built: npm run build');
  const { a } = await threeMembers(t, 'console', assets);
  const chrome = await openBrowser(t);
  const page = await signedInPage(chrome, a.url);
  t.same(await memberStates(page, ['Leader', 'Follower', 'Follower']), ['Leader', 'Follower', 'Follower']);
  t.match(await page.textContent('[data-name=members]'), 'b.test:2113', 'with each member\'s address');
  await screenshot(page, 'dashboard-members-cluster');

  const resigned = await fetch(`${a.url}/admin/node/resign`, { method: 'POST', headers: { authorization: ADMIN_AUTH } });
  t.equal(resigned.status, 200);
  t.same(await memberStates(page, ['Follower', 'Leader', 'Follower']), ['Follower', 'Leader', 'Follower'], 'the page follows the new leader');
  await page.close();
});
