// The users API in XML: replies in text/xml or application/xml as Accept asks, request bodies in
// XML with the reference's field names and the accepted forms of a group list, JSON error bodies,
// and refusals (malformed XML, a DOCTYPE, an Accept nothing matches) that change nothing.
import { XMLParser } from 'fast-xml-parser';
import t from 'tap';
import { ADMIN_AUTH, basicAuth } from '../helpers/auth.js';
import { startNode } from '../helpers/node.js';

const node = await startNode(t);
const parser = new XMLParser({ parseTagValue: false, isArray: (name) => ['links', 'groups', 'data'].includes(name) });

async function call(method: string, path: string, headers: Record<string, string>, body?: string) {
  const response = await fetch(node.url + path, { method, headers: { authorization: ADMIN_AUTH, ...headers }, body });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}


async function groupsOf(login: string): Promise<string[]> {
  const reply = await call('GET', `/users/${login}`, { accept: 'application/json' });
  return JSON.parse(reply.text).data.groups as string[];
}

t.test('replies in XML when Accept asks for it, the same document as JSON', async (t) => {
  const reply = await call('GET', '/users/admin', { accept: 'text/xml' });
  t.equal(reply.status, 200);
  t.equal(reply.type, 'text/xml; charset=utf-8');
  t.match(reply.text, /^<\?xml version="1\.0" encoding="utf-8"\?><result>/);
  const { result } = parser.parse(reply.text) as { result: { data: Array<Record<string, any>>; success: string; error: string } };
  t.equal(result.success, 'true');
  t.equal(result.error, 'Success');
  t.equal(result.data[0].loginName, 'admin');
  t.same(result.data[0].groups, ['$admins']);
  t.same(result.data[0].links.map((link: { rel: string }) => link.rel), ['reset-password', 'change-password', 'edit', 'delete', 'disable']);

  const list = await call('GET', '/users/', { accept: 'application/xml' });
  t.equal(list.type, 'application/xml; charset=utf-8');
  const logins = (parser.parse(list.text) as { result: { data: Array<{ loginName: string }> } }).result.data.map((user) => user.loginName);
  t.same(logins.sort(), ['admin', 'ops'], 'a list is one data element per user');
  t.equal((await call('GET', '/users/admin?format=xml', {})).type, 'application/xml; charset=utf-8', '?format=xml too');
  t.equal((await call('GET', '/users/admin', {})).type, 'application/json; charset=utf-8', 'JSON without an Accept');
});

t.test('XML request bodies, with the group list in each accepted form', async (t) => {
  const dotNet = '<UserItem><LoginName>xena</LoginName><FullName>Xena X</FullName><Groups><string>g1</string><string>g2</string></Groups><Password>pw1</Password></UserItem>';
  const created = await call('POST', '/users/', { 'content-type': 'text/xml', accept: 'text/xml' }, dotNet);
  t.equal(created.status, 201, created.text);
  t.equal(created.type, 'text/xml; charset=utf-8');
  t.match(created.text, /<loginName>xena<\/loginName><success>true<\/success>/);
  t.same(await groupsOf('xena'), ['g1', 'g2']);
  t.equal((await fetch(`${node.url}/users/$current`, { headers: { authorization: basicAuth('xena', 'pw1') } })).status, 200, 'the password works');

  const update = await call('PUT', '/users/xena', { 'content-type': 'application/xml' }, '<u><fullName>X</fullName><groups>a</groups><groups>b</groups></u>');
  t.equal(update.status, 200, update.text);
  t.same(await groupsOf('xena'), ['a', 'b'], 'repeated elements');
  await call('PUT', '/users/xena', { 'content-type': 'text/xml' }, '<u><Groups><item>only</item></Groups></u>');
  t.same(await groupsOf('xena'), ['only'], 'one item');
  await call('PUT', '/users/xena', { 'content-type': 'text/xml' }, '<u><Groups/></u>');
  t.same(await groupsOf('xena'), [], 'an empty list');

  const reset = await call('POST', '/users/xena/command/reset-password', { 'content-type': 'text/xml' }, '<PasswordResetItem><NewPassword>pw &amp; 2</NewPassword></PasswordResetItem>');
  t.equal(reset.status, 200, reset.text);
  t.equal((await fetch(`${node.url}/users/$current`, { headers: { authorization: basicAuth('xena', 'pw & 2') } })).status, 200, 'entities are decoded');
  t.equal((await call('POST', '/users/xena/command/disable', { 'content-type': 'text/xml' }, '<x/>')).status, 200, 'an empty command body');
});

t.test('refusals: coded JSON errors, and nothing changed', async (t) => {
  const refused = [
    ['malformed', '<UserItem><LoginName>yann</LoginName><Password>pw</UserItem>', 'SVCDB_ERR_USER_INVALID'],
    ['a DOCTYPE', '<!DOCTYPE u [<!ENTITY e "yann">]><UserItem><LoginName>&e;</LoginName><Password>pw</Password></UserItem>', 'SVCDB_ERR_USER_INVALID'],
    ['two roots', '<a>1</a><b>2</b>', 'SVCDB_ERR_USER_INVALID'],
    ['text only', '<UserItem>yann</UserItem>', 'SVCDB_ERR_USER_INVALID'],
    ['no password', '<UserItem><LoginName>yann</LoginName></UserItem>', 'SVCDB_ERR_USER_INVALID'],
    ['nested too deep', `<UserItem><LoginName>yann</LoginName>${'<a>'.repeat(50_000)}${'</a>'.repeat(50_000)}</UserItem>`, 'SVCDB_ERR_USER_INVALID'],
  ] as const;
  for (const [what, body, code] of refused) {
    const reply = await call('POST', '/users/', { 'content-type': 'text/xml', accept: 'text/xml' }, body);
    t.equal(reply.status, 400, what);
    t.equal(reply.type, 'application/json; charset=utf-8', `${what}: the error body is JSON`);
    t.equal(JSON.parse(reply.text).code, code, what);
  }
  const unacceptable = await call('POST', '/users/', { 'content-type': 'text/xml', accept: 'application/atom+xml' },
    '<UserItem><LoginName>yann</LoginName><Password>pw</Password></UserItem>');
  t.equal(unacceptable.status, 406, 'an Accept the API cannot answer is refused before the user is made');
  t.equal(JSON.parse(unacceptable.text).code, 'SVCDB_ERR_HTTP_NOT_ACCEPTABLE');
  t.equal((await call('GET', '/users/yann', { accept: 'application/json' })).status, 404, 'no user was created');
  const missing = await call('GET', '/users/nobody', { accept: 'text/xml' });
  t.equal(missing.status, 404);
  t.equal(JSON.parse(missing.text).code, 'SVCDB_ERR_USER_NOT_FOUND', 'errors stay JSON when XML was asked for');
});
