// The console plugin over HTTP, on files a test writes: what /web and its assets answer, their
// caching, compression and content security policy, who may fetch them, and that the root sends
// browsers to the console while API clients get what they always got.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { ConsoleAssets } from '../../src/daemon/services/console-assets.js';
import { startNode } from '../helpers/node.js';

const INDEX = '<!DOCTYPE html><html><head><script type="module" src="/web/assets/main-AB12CD34.js"></script></head><body></body></html>';
const SCRIPT = 'console.log("console");'.repeat(50);

function writeConsole(directory: string): ConsoleAssets {
  mkdirSync(join(directory, 'assets'), { recursive: true });
  writeFileSync(join(directory, 'index.html'), INDEX);
  writeFileSync(join(directory, 'assets', 'main-AB12CD34.js'), SCRIPT);
  writeFileSync(join(directory, 'assets', 'main-AB12CD34.js.gz'), gzipSync(SCRIPT));
  writeFileSync(join(directory, 'assets', 'notes.txt'), 'not an asset type');
  return ConsoleAssets.load(directory)!;
}

t.test('a directory without a built console loads as none', async (t) => {
  t.equal(ConsoleAssets.load(t.testdir()), undefined);
});

t.test('the console', async (t) => {
  const node = await startNode(t, { console: writeConsole(join(t.testdir(), 'console')) });

  t.test('/web is the index: anyone may fetch it, never cached, under a strict policy', async (t) => {
    const reply = await fetch(`${node.url}/web`);
    t.equal(reply.status, 200);
    t.equal(await reply.text(), INDEX);
    t.equal(reply.headers.get('content-type'), 'text/html; charset=utf-8');
    t.equal(reply.headers.get('cache-control'), 'no-cache');
    const policy = reply.headers.get('content-security-policy') ?? '';
    t.match(policy, /default-src 'self'/);
    t.match(policy, /script-src 'self'(;|$)/, 'no inline script');
    t.match(policy, /style-src 'self'(;|$)/, 'no inline style');
    t.match(policy, /frame-ancestors 'none'/);
    t.notMatch(policy, /unsafe|https?:/, 'no exception and no other origin');
    t.equal(reply.headers.get('x-content-type-options'), 'nosniff');
  });

  t.test('assets are cached for a year and served compressed when the browser accepts it', async (t) => {
    const plain = await fetch(`${node.url}/web/assets/main-AB12CD34.js`, { headers: { 'accept-encoding': 'identity' } });
    t.equal(plain.status, 200);
    t.equal(await plain.text(), SCRIPT);
    t.equal(plain.headers.get('content-encoding'), null);
    t.equal(plain.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    t.equal(plain.headers.get('content-type'), 'text/javascript; charset=utf-8');
    t.equal(plain.headers.get('vary'), 'Accept-Encoding');
    const gzip = await fetch(`${node.url}/web/assets/main-AB12CD34.js`, { headers: { 'accept-encoding': 'br, gzip' } });
    t.equal(gzip.headers.get('content-encoding'), 'gzip', 'the form the build wrote (no brotli one here)');
    t.equal(await gzip.text(), SCRIPT, 'fetch decodes it back to the script');
  });

  t.test('an unknown asset is a coded 404; other methods are 405', async (t) => {
    for (const name of ['main-FFFFFFFF.js', 'notes.txt', '..%2Findex.html']) {
      const reply = await fetch(`${node.url}/web/assets/${name}`);
      t.equal(reply.status, 404, name);
      t.equal((await reply.json()).code, 'SVCDB_ERR_HTTP_NOT_FOUND');
    }
    const post = await fetch(`${node.url}/web`, { method: 'POST' });
    t.equal(post.status, 405);
    t.equal((await post.json()).code, 'SVCDB_ERR_HTTP_METHOD_NOT_ALLOWED');
  });

  t.test('the root sends a browser to /web and answers API clients as before', async (t) => {
    const browser = await fetch(`${node.url}/`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }, redirect: 'manual' });
    t.equal(browser.status, 302);
    t.equal(browser.headers.get('location'), '/web');
    for (const accept of [undefined, '*/*', 'application/json', 'text/html;q=0']) {
      const reply = await fetch(`${node.url}/`, { headers: accept === undefined ? {} : { accept }, redirect: 'manual' });
      t.equal(reply.status, 404, `Accept: ${accept}`);
      t.equal((await reply.json()).code, 'SVCDB_ERR_HTTP_NOT_FOUND');
    }
  });

  t.test('the projections page of the wire protocol is the console\'s', async (t) => {
    const reply = await fetch(`${node.url}/web/projections.htm`, { redirect: 'manual' });
    t.equal(reply.status, 302);
    t.equal(reply.headers.get('location'), '/web#/projections');
  });

  t.test('a refusal asks a page\'s script for credentials in a way browsers leave to the page', async (t) => {
    const script = await fetch(`${node.url}/users`, { headers: { 'x-requested-with': 'XMLHttpRequest' } });
    t.equal(script.status, 401);
    t.match(script.headers.get('www-authenticate'), /^X-Basic realm="svcdb"/);
    const client = await fetch(`${node.url}/users`);
    t.match(client.headers.get('www-authenticate'), /^Basic realm="svcdb"/, 'other clients get the Basic challenge as before');
  });
});

t.test('a node without the console has nothing at /web and no redirect at the root', async (t) => {
  const node = await startNode(t);
  t.equal((await fetch(`${node.url}/web`)).status, 404);
  const root = await fetch(`${node.url}/`, { headers: { accept: 'text/html' }, redirect: 'manual' });
  t.equal(root.status, 404);
});
