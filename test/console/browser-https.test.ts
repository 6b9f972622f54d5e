// The web console over HTTPS (a node with its certificate, --insecure off): signing in, the
// dashboard, an append through the form, and reloading the certificates from the admin page.
import t from 'tap';
import { join } from 'node:path';
import { createAuthority, createNodeCertificate, installCertificate, liveCertificatePaths, tlsFlags } from '../helpers/certificates.js';
import { openBrowser, screenshot, signIn } from '../helpers/browser.js';
import { startServer } from '../helpers/cli.js';

const dir = t.testdir();
const ca = await createAuthority(join(dir, 'certificates'), 'ca');
const node = await createNodeCertificate(join(dir, 'certificates'), 'node', ca);
const live = await liveCertificatePaths(dir);
await installCertificate(live, node, ca);
const server = await startServer(t, { dbPath: join(dir, 'db'), args: tlsFlags(live) });
// The test's own authority is not one the browser knows.
const chrome = await openBrowser(t, { ignoreHTTPSErrors: true });

t.test('the console works over HTTPS', async (t) => {
  t.match(server.url, /^https:/, 'the node serves HTTPS');
  const page = await chrome.newPage();
  await signIn(page, server.url);
  await page.waitForFunction(() => document.querySelector('[data-name=state]')?.textContent === 'leader');
  t.pass('the dashboard shows the node');

  await page.goto(`${server.url}/web#/streams/secure-1`);
  await page.fill('form[name=append] input[name=eventType]', 'Sealed');
  await page.fill('form[name=append] textarea[name=data]', '{"secret": false}');
  await page.click('form[name=append] button[type=submit]');
  await page.waitForSelector('text=Appended as event 0.');
  t.pass('an append through the form is written');

  await page.goto(`${server.url}/web#/admin`);
  await page.click('button[name=reload-certificates]');
  await page.waitForSelector('text=Certificates reloaded.');
  t.pass('the certificates are reloaded from the admin page');
  await screenshot(page, 'https-admin');
  t.same(chrome.errors, [], 'no error and no policy violation');
  await page.close();
});
