// The web console in a real headless Chromium against a real `svcdb serve` over plain HTTP
// (--insecure): signing in, the dashboard and its live tail, the stream browser, metadata,
// hostile event bodies, users admin and the node operations. Each page is photographed into
// test-artifacts/console/.
import t from 'tap';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { adminFetch, basicAuth, createUser } from '../helpers/auth.js';
import { openBrowser, screenshot, signedInPage, signIn } from '../helpers/browser.js';
import { startServer } from '../helpers/cli.js';
import { pollUntilAsync } from '../helpers/wait.js';

const dir = t.testdir();
const server = await startServer(t, { dbPath: join(dir, 'db'), args: ['--insecure'] });
const { url } = server;
const chrome = await openBrowser(t);

async function append(stream: string, events: Array<{ eventType: string; data: unknown }>): Promise<void> {
  const body = events.map((event) => ({ eventId: crypto.randomUUID(), ...event }));
  const response = await adminFetch(`${url}/streams/${encodeURIComponent(stream)}`, {
    method: 'POST', headers: { 'content-type': 'application/vnd.svc.events+json' }, body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`append to ${stream}: ${response.status} ${await response.text()}`);
}

const signedIn = () => signedInPage(chrome, url);

async function titles(page: Page): Promise<string[]> {
  return page.locator('[data-name=event] header > a:first-child').allTextContents();
}

t.test('wrong credentials are refused and nothing else is shown', async (t) => {
  const page = await chrome.newPage();
  await page.goto(`${url}/web`);
  await page.fill('input[name=login]', 'admin');
  await page.fill('input[name=password]', 'not-the-password');
  await page.click('button[type=submit]');
  await page.waitForSelector('[role=alert]');
  t.equal(await page.textContent('[role=alert]'), 'Wrong login or password.');
  t.equal(await page.locator('header .user').count(), 0, 'no page of the console opens');
  t.equal(await page.evaluate(() => localStorage.length), 0, 'nothing was put in local storage');
  await screenshot(page, 'login-refused');
  await page.close();
});

t.test('a browser at the root is sent to the console; signing in keeps the credentials for the tab only', async (t) => {
  const page = await chrome.newPage();
  await page.goto(url);
  t.equal(new URL(page.url()).pathname, '/web', 'the root redirects a browser to /web');
  await page.fill('input[name=login]', 'admin');
  await page.fill('input[name=password]', 'changeit');
  await screenshot(page, 'login');
  await page.click('button[type=submit]');
  await page.waitForSelector('header .user');
  t.equal(await page.textContent('header .user'), 'admin');
  const stored = await page.evaluate(() => ({ local: JSON.stringify({ ...localStorage }), session: Object.keys(sessionStorage) }));
  t.notMatch(stored.local, /changeit/, 'the password is not in local storage');
  t.same(stored.session, ['svcdb.console.credentials'], 'the credentials are in the tab\'s session storage');
  await page.reload();
  await page.waitForSelector('header .user');
  t.pass('a reload of the tab stays signed in');
  const other = await chrome.newPage();
  await other.goto(`${url}/web`);
  await other.waitForSelector('input[name=login]');
  t.pass('another tab must sign in itself');
  await other.close();
  await page.close();
});

t.test('the dashboard shows the node and its figures', async (t) => {
  const page = await signedIn();
  await page.waitForFunction(() => document.querySelector('[data-name=state]')?.textContent === 'leader');
  await page.waitForFunction(() => document.querySelectorAll('.chart polyline[points*=" "]').length >= 7, undefined, { polling: 200 });
  t.match(await page.textContent('[data-name=version]'), /^\d+\.\d+\.\d+/);
  t.match(await page.textContent('[data-name=uptime]'), /^\d+(\.\d+)? s$|^\d+ min \d+ s$/);
  const icon = await page.getAttribute('link[rel=icon]', 'href');
  const iconReply = await fetch(`${url}${icon ?? '/missing-icon'}`);
  t.equal(iconReply.status, 200, 'the page names an icon the node serves');
  t.equal(iconReply.headers.get('content-type'), 'image/svg+xml');
  await screenshot(page, 'dashboard');
  await page.close();
});

t.test('an event appended through the form appears in the live tail', async (t) => {
  const dashboard = await signedIn();
  await dashboard.waitForSelector('form[name=tail-filter]');
  const page = await signedIn();
  await page.goto(`${url}/web#/streams/orders-1`);
  await page.waitForSelector('form[name=append]');
  t.match(await page.textContent('.notice'), /has no events/, 'a stream that does not exist yet says so');
  await page.fill('form[name=append] input[name=eventType]', 'OrderPlaced');
  await page.fill('form[name=append] textarea[name=data]', '{"total": 42}');
  await page.click('form[name=append] button[type=submit]');
  await page.waitForSelector('text=Appended as event 0.');
  await page.waitForSelector('[data-name=event]');
  t.same(await titles(page), ['0@orders-1'], 'the stream page shows the new event');
  await screenshot(page, 'stream-appended');
  await dashboard.waitForSelector('[data-name=tail] >> text=0@orders-1');
  t.pass('the dashboard\'s tail of $all shows the event without a reload');
  await screenshot(dashboard, 'dashboard-tail');
  await dashboard.close();
  await page.close();
});

t.test('an event appended through the form is stored byte for byte, and shown so', async (t) => {
  const typed = '{"big": 12345678901234567890123, "price": 1.0, "id": 9007199254740993}';
  const page = await signedIn();
  await page.goto(`${url}/web#/streams/exact-1`);
  await page.waitForSelector('form[name=append]');
  await page.fill('form[name=append] input[name=eventType]', 'Priced');
  await page.fill('form[name=append] textarea[name=data]', typed);
  await page.click('form[name=append] button[type=submit]');
  await page.waitForSelector('text=Appended as event 0.');
  const stored = await adminFetch(`${url}/streams/exact-1/0`, { headers: { accept: 'application/json' } });
  t.equal(await stored.text(), typed, 'the node holds the bytes as typed: no digit lost, 1.0 kept');
  await page.goto(`${url}/web#/event/exact-1/0`);
  await page.waitForSelector('pre[aria-label=data]');
  t.equal(await page.textContent('pre[aria-label=data]'), '{\n  "big": 12345678901234567890123,\n  "price": 1.0,\n  "id": 9007199254740993\n}', 'the event page shows every digit');
  t.equal(await page.title(), '0@exact-1 · svcdb', 'the tab is titled by the event it shows');
  await screenshot(page, 'event-exact-numbers');
  await page.close();
});

t.test('the live tail hides system events and links, and filters by stream and type', async (t) => {
  const page = await signedIn();
  await page.waitForSelector('form[name=tail-filter]');
  await append('tail-a', [{ eventType: 'Placed', data: {} }]);
  await append('tail-links', [{ eventType: '$>', data: '0@tail-a' }]);
  await append('tail-b', [{ eventType: 'Shipped', data: {} }]);
  await page.waitForSelector('[data-name=tail] >> text=0@tail-b');
  const shown = await page.locator('[data-name=tail] tr td:first-child').allTextContents();
  t.notOk(shown.includes('0@tail-links'), 'a link is not shown by default');
  t.notOk(shown.some((title) => title.includes('@$')), 'nor an event of a system stream');
  await page.fill('form[name=tail-filter] input[name=tail-stream]', 'tail-');
  await page.fill('form[name=tail-filter] input[name=tail-type]', 'Ship');
  await page.click('form[name=tail-filter] button[type=submit]');
  await page.waitForFunction(() => document.querySelectorAll('[data-name=tail] tr').length === 1);
  t.same(await page.locator('[data-name=tail] tr td:first-child').allTextContents(), ['0@tail-b'], 'only tail- streams\' Ship* events');
  await append('tail-a', [{ eventType: 'Shipped', data: {} }, { eventType: 'Billed', data: {} }]);
  await page.waitForSelector('[data-name=tail] >> text=1@tail-a');
  t.same(await page.locator('[data-name=tail] tr td:first-child').allTextContents(), ['1@tail-a', '0@tail-b'], 'a new matching event arrives live; the other is left out');
  await page.check('form[name=tail-filter] input[name=tail-system]');
  await page.fill('form[name=tail-filter] input[name=tail-type]', '');
  await page.click('form[name=tail-filter] button[type=submit]');
  await page.waitForSelector('[data-name=tail] >> text=0@tail-links');
  t.pass('links show when asked for');
  await screenshot(page, 'dashboard-tail-filtered');
  await page.close();
});

t.test('the append form checks its input before sending', async (t) => {
  const page = await signedIn();
  await page.goto(`${url}/web#/streams/orders-2`);
  await page.fill('form[name=append] input[name=eventType]', 'X');
  await page.fill('form[name=append] textarea[name=data]', '{not json');
  await page.click('form[name=append] button[type=submit]');
  await page.waitForSelector('form[name=append] .error');
  t.match(await page.textContent('form[name=append] .error'), /data is not valid JSON/);
  const read = await adminFetch(`${url}/streams/orders-2`, { headers: { accept: 'application/json' } });
  t.equal(read.status, 404, 'nothing was written');
  await page.close();
});

t.test('a stream is paged both ways', async (t) => {
  await append('paged', Array.from({ length: 45 }, (_, index) => ({ eventType: 'Counted', data: { index } })));
  const page = await signedIn();
  await page.goto(`${url}/web#/streams/paged`);
  await page.waitForSelector('[data-name=event]');
  let shown = await titles(page);
  t.equal(shown.length, 20);
  t.same([shown[0], shown.at(-1)], ['44@paged', '25@paged'], 'the newest page first');
  await page.click('.pager >> nth=0 >> a[rel=next]');
  await page.waitForSelector('text="24@paged"');
  shown = await titles(page);
  t.same([shown[0], shown.at(-1)], ['24@paged', '5@paged'], 'older events on the next page');
  await page.click('.pager >> nth=0 >> a[rel=last]');
  // Exact text: '0@paged' alone would also match 20@paged and 10@paged of the page before.
  await page.waitForSelector('text="0@paged"');
  shown = await titles(page);
  t.same([shown[0], shown.at(-1)], ['19@paged', '0@paged'], 'the oldest page');
  await page.click('.pager >> nth=0 >> a[rel=previous]');
  await page.waitForSelector('text="39@paged"');
  shown = await titles(page);
  t.same([shown[0], shown.at(-1)], ['39@paged', '20@paged'], 'newer events going forward');
  await screenshot(page, 'stream-paged');
  await page.goto(`${url}/web#/streams`);
  await page.waitForSelector('[data-name=recent]');
  const recent = await page.locator('[data-name=recent] a').allTextContents();
  t.equal(recent[0], 'paged', 'the stream is first among the recently opened');
  const stored = await page.evaluate(() => localStorage.getItem('svcdb.console.recentStreams'));
  t.same(JSON.parse(stored!), recent, 'local storage holds the names and nothing else');
  await screenshot(page, 'streams');
  await page.close();
});

t.test('the stream browser lists streams changed and created lately, and finds them by prefix', async (t) => {
  await append('browse-old', [{ eventType: 'Made', data: {} }]);
  await append('browse-a-1', [{ eventType: 'Made', data: {} }, { eventType: 'Changed', data: {} }]);
  await append('browse-b-1', [{ eventType: 'Made', data: {} }]);
  await append('browse-old', [{ eventType: 'Changed', data: {} }]);
  const page = await signedIn();
  await page.goto(`${url}/web#/streams`);
  await page.waitForSelector('[data-name=changed] >> text=browse-old');
  const changed = (await page.locator('[data-name=changed] tbody tr td:first-child').allTextContents()).filter((name) => name.startsWith('browse-'));
  t.same(changed, ['browse-old', 'browse-b-1', 'browse-a-1'], 'newest change first');
  const created = (await page.locator('[data-name=created] tbody tr td:first-child').allTextContents()).filter((name) => name.startsWith('browse-'));
  t.same(created, ['browse-b-1', 'browse-a-1', 'browse-old'], 'newest creation first');
  t.notOk((await page.locator('[data-name=changed] tbody').textContent())?.includes('$'), 'no system stream unless asked');
  await page.fill('form[name=find-streams] input[name=prefix]', 'browse-a');
  await page.click('form[name=find-streams] button[type=submit]');
  await page.waitForFunction(() => document.querySelectorAll('[data-name=changed] tbody tr').length === 1);
  t.same(await page.locator('[data-name=changed] tbody tr td:first-child').allTextContents(), ['browse-a-1'], 'only the streams with the prefix');
  t.same(await page.locator('[data-name=changed] tbody tr td:nth-child(2)').allTextContents(), ['1'], 'with their last event number');
  await screenshot(page, 'stream-browser');
  await page.click('[data-name=changed] a >> text=browse-a-1');
  await page.waitForSelector('[data-name=event]');
  t.same(await titles(page), ['1@browse-a-1', '0@browse-a-1'], 'a found stream opens');
  await page.close();
});

t.test('an event opens as JSON, text or hex', async (t) => {
  const page = await signedIn();
  await page.goto(`${url}/web#/event/paged/3`);
  await page.waitForSelector('pre[aria-label=data]');
  t.equal(await page.textContent('pre[aria-label=data]'), '{\n  "index": 3\n}', 'JSON is pretty-printed');
  await page.click('button[name=view-hex]');
  await page.waitForSelector('pre[aria-label=data] >> text=/^00000000  7b/');
  t.match(await page.textContent('pre[aria-label=data]'), /^00000000 {2}7b 22 69 6e 64 65 78 22/, 'hex shows the stored bytes');
  await screenshot(page, 'event-hex');
  await page.click('button[name=view-text]');
  await page.waitForSelector('pre[aria-label=data] >> text={"index":3}');
  t.pass('text shows the bytes as stored');
  await page.close();
});

t.test('a link event is followed to the event it points at', async (t) => {
  await append('links', [{ eventType: '$>', data: '1@paged' }]);
  const page = await signedIn();
  await page.goto(`${url}/web#/streams/links`);
  await page.waitForSelector('[data-name=event]');
  t.same(await titles(page), ['1@paged'], 'the feed resolves the link to its target');
  t.equal(await page.textContent('[data-name=event] a.via'), 'via link 0@links');
  await page.goto(`${url}/web#/streams/%24all`);
  await page.waitForSelector('[data-name=event] a.follow');
  t.equal(await page.textContent('[data-name=event] a.follow'), 'follow link to 1@paged', '$all shows the link itself, with a way to follow it');
  await page.click('[data-name=event] a.follow');
  await page.waitForSelector('h1 >> text=1@paged');
  t.equal(await page.textContent('pre[aria-label=data]'), '{\n  "index": 1\n}');
  await page.close();
});

t.test('a hostile event body is shown as text and never runs', async (t) => {
  const hostile = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">';
  await append('hostile', [{ eventType: '<b>Bold</b>', data: { html: hostile } }, { eventType: 'raw', data: hostile }]);
  const page = await signedIn();
  await page.goto(`${url}/web#/streams/hostile`);
  await page.waitForSelector('[data-name=event]');
  await page.goto(`${url}/web#/event/hostile/1`);
  await page.waitForSelector('pre[aria-label=data]');
  t.equal(await page.textContent('pre[aria-label=data]'), hostile, 'the text body is shown exactly, as text');
  await page.goto(`${url}/web#/streams/hostile`);
  await page.waitForSelector('[data-name=event] >> text=<b>Bold</b>');
  t.match(await page.textContent('[data-name=event] >> nth=1'), /<script>window.pwned = 1<\/script>/);
  t.equal(await page.evaluate(() => (window as { pwned?: number }).pwned), undefined, 'nothing in the bodies ran');
  t.equal(await page.locator('main script, main img, main b').count(), 0, 'no element came from event text');
  await screenshot(page, 'stream-hostile');
  await page.close();
});

t.test('metadata is validated and saved', async (t) => {
  const page = await signedIn();
  await page.goto(`${url}/web#/metadata/orders-1`);
  await page.waitForSelector('form[name=metadata]');
  await page.fill('input[name="$maxCount"]', 'many');
  await page.click('form[name=metadata] button[type=submit]');
  await page.waitForSelector('form[name=metadata] .error');
  t.match(await page.textContent('form[name=metadata] .error'), /\$maxCount must be a whole number/);
  await page.fill('input[name="$maxCount"]', '5');
  await page.fill('input[name="$maxAge"]', '3600');
  await page.fill('input[name="$r"]', '$admins, reader');
  await page.fill('textarea[name=custom]', '{"owner": "billing"}');
  await page.click('form[name=metadata] button[type=submit]');
  await page.waitForSelector('text=Metadata saved.');
  const saved = await adminFetch(`${url}/streams/orders-1/metadata`, { headers: { accept: 'application/json' } });
  t.same(await saved.json(), { $maxAge: 3600, $maxCount: 5, $acl: { $r: ['$admins', 'reader'] }, owner: 'billing' });
  await page.waitForSelector('[data-name=stored-metadata] >> text=/billing/', { state: 'attached' });
  await screenshot(page, 'metadata');
  await page.close();
});

t.test('a stream is deleted after a confirmation that names it', async (t) => {
  await append('doomed', [{ eventType: 'Born', data: {} }]);
  const page = await signedIn();
  await page.goto(`${url}/web#/streams/doomed`);
  await page.waitForSelector('[data-name=event]');
  await page.click('button[name=soft-delete]');
  await page.waitForSelector('.confirm');
  t.match(await page.textContent('.confirm p'), /Delete the stream 'doomed'\?/);
  await screenshot(page, 'stream-delete-confirm');
  await page.click('.confirm button.danger');
  await page.waitForSelector('text=has no events');
  const read = await adminFetch(`${url}/streams/doomed`, { headers: { accept: 'application/json' } });
  t.equal(read.status, 404, 'the stream is soft-deleted');
  await page.close();
});

t.test('users are created, changed and deleted', async (t) => {
  await createUser(url, { loginName: 'existing', password: 'pw' });
  const page = await signedIn();
  await page.goto(`${url}/web#/users`);
  await page.waitForSelector('[data-name=user-admin]');
  await page.fill('form[name=create-user] input[name=loginName]', 'carol');
  await page.fill('form[name=create-user] input[name=fullName]', 'Carol Ops');
  await page.fill('form[name=create-user] input[name=groups]', '$ops');
  await page.fill('form[name=create-user] input[name=password]', 'first-password');
  await page.click('form[name=create-user] button[type=submit]');
  await page.waitForSelector('[data-name=user-carol]');
  t.equal((await adminFetch(`${url}/users/carol`).then((reply) => reply.json())).data.fullName, 'Carol Ops');

  const row = page.locator('[data-name=user-carol]');
  await row.locator('input[name=groups]').fill('$ops, auditors');
  await row.locator('button[name=save-groups]').click();
  await pollUntilAsync('carol\'s groups to change', async () => (await adminFetch(`${url}/users/carol`).then((reply) => reply.json())).data.groups.length === 2);
  t.same((await adminFetch(`${url}/users/carol`).then((reply) => reply.json())).data.groups, ['$ops', 'auditors']);

  await page.locator('[data-name=user-carol] input[name=new-password]').fill('second-password');
  await page.locator('[data-name=user-carol] button[name=reset-password]').click();
  await page.waitForSelector('[data-name=user-carol] >> text=Password reset.');
  const asCarol = await fetch(`${url}/users/$current`, { headers: { authorization: basicAuth('carol', 'second-password') } });
  t.equal(asCarol.status, 200, 'the new password works');

  await page.locator('[data-name=user-carol] button[name=disable]').click();
  await page.waitForSelector('[data-name=user-carol] button[name=enable]');
  t.equal((await adminFetch(`${url}/users/carol`).then((reply) => reply.json())).data.disabled, true, 'disabled');
  await page.locator('[data-name=user-carol] button[name=enable]').click();
  await page.waitForSelector('[data-name=user-carol] button[name=disable]');
  t.equal((await adminFetch(`${url}/users/carol`).then((reply) => reply.json())).data.disabled, false, 'enabled again');
  await screenshot(page, 'users');

  await page.locator('[data-name=user-carol] button[name=delete-user]').click();
  t.match(await page.textContent('.confirm p'), /Delete the user 'carol'\?/);
  await page.click('.confirm button.danger');
  await page.waitForSelector('[data-name=user-carol]', { state: 'detached' });
  t.equal((await adminFetch(`${url}/users/carol`)).status, 404, 'deleted');
  await page.close();
});

t.test('a user without groups is offered no admin page or action, and changes their own password', async (t) => {
  await createUser(url, { loginName: 'plain', password: 'plain-password' });
  const page = await chrome.newPage();
  await signIn(page, url, 'plain', 'plain-password');
  await page.waitForSelector('header nav a >> text=Streams');
  t.same(await page.locator('header nav a').allTextContents(), ['Dashboard', 'Statistics', 'Streams', 'Subscriptions', 'Projections', 'Query'], 'no Users, Scavenge or Admin');
  t.equal(await page.locator('[data-name=default-password]').count(), 0, 'no default-password warning for a user with their own');
  await page.goto(`${url}/web#/admin`);
  await page.waitForSelector('.notice');
  t.match(await page.textContent('.notice'), /^This page is for operators/, 'the admin page says whom it is for');
  t.equal(await page.locator('button[name=shutdown]').count(), 0, 'no shutdown button');
  await page.goto(`${url}/web#/users`);
  await page.waitForSelector('.notice >> text=/administrators/');
  await page.goto(`${url}/web#/streams/%24all`);
  await page.waitForSelector('[role=alert]');
  t.match(await page.textContent('[role=alert]'), /^Not allowed/, '$all is refused by its ACL');
  await screenshot(page, 'plain-user');

  await page.click('header a.user');
  await page.waitForSelector('form[name=change-password]');
  t.equal(await page.textContent('[data-name=groups]'), '(none)');
  await page.fill('input[name=current-password]', 'plain-password');
  await page.fill('input[name=new-password]', 'second-plain-password');
  await page.click('button[name=change-password]');
  await page.waitForSelector('text=Password changed.');
  const asPlain = await fetch(`${url}/users/$current`, { headers: { authorization: basicAuth('plain', 'second-plain-password') } });
  t.equal(asPlain.status, 200, 'the new password is the user\'s');
  await page.reload();
  await page.waitForSelector('[data-name=groups] >> text=(none)');
  t.pass('the console goes on with the new password: the node still says who the user is after a reload');
  await page.close();
});

t.test('an operator on the default password is warned on every page', async (t) => {
  const page = await signedIn();
  await page.waitForSelector('[data-name=default-password]');
  t.match(await page.textContent('[data-name=default-password]'), /^admin still has the default password/);
  t.same(await page.locator('header nav a').allTextContents(), ['Dashboard', 'Statistics', 'Streams', 'Subscriptions', 'Projections', 'Query', 'Users', 'Scavenge', 'Admin']);
  await page.goto(`${url}/web#/scavenge`);
  await page.waitForSelector('[data-name=default-password]');
  await page.close();
});

t.test('the query editor is loaded when a page needs it and highlights the source', async (t) => {
  const page = await signedIn();
  const editorScripts: string[] = [];
  page.on('request', (request) => { if (/\/web\/assets\/editor-/.test(request.url())) editorScripts.push(request.url()); });
  await page.goto(`${url}/web#/dashboard`);
  await page.waitForSelector('[data-name=state]');
  t.same(editorScripts, [], 'the dashboard does not load the editor');
  await page.goto(`${url}/web#/query`);
  await page.waitForSelector('.editor .token-builtin');
  t.equal(editorScripts.length, 1, 'the query page loads it');
  await page.fill('.editor textarea', 'fromStream("<img src=x onerror=alert(1)>") // note');
  await page.waitForSelector('.editor .token-comment >> text="// note"');
  t.equal(await page.textContent('.editor .token-string'), '"<img src=x onerror=alert(1)>"', 'source text is shown as text');
  t.equal(await page.locator('.editor img').count(), 0);
  await screenshot(page, 'query-editor');
  await page.close();
});

t.test('admin operations: merge indexes, then shut down after a confirmation', async (t) => {
  const page = await signedIn();
  await page.goto(`${url}/web#/admin`);
  await page.click('button[name=merge-indexes]');
  await page.waitForSelector('text=Index merge started.');
  await screenshot(page, 'admin');
  await page.click('button[name=shutdown]');
  t.match(await page.textContent('.confirm p'), /Shut the node down\?/);
  await page.click('.confirm button.danger');
  await page.waitForSelector('text=The node is shutting down.');
  const exit = await server.process.exited;
  t.equal(exit.code, 0, 'the node stopped cleanly');
  await page.close();
});

t.test('the browser reported no error and no policy violation', async (t) => {
  t.same(chrome.errors, []);
});
