// Every error reply is a JSON `{code, message}` that says what the client needs and nothing of the
// server's internals: requests the HTTP parser refuses (431, malformed request lines and headers,
// smuggling attempts, timeouts) as much as routed ones; storage errors without file paths or
// system error text (the log keeps those); a missing event with its own code.
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { Writable } from 'node:stream';
import pino from 'pino';
import t, { type Test } from 'tap';
import { Errors } from '../../src/common/errors.js';
import { buildApp } from '../../src/daemon/http/app.js';
import { NodeInfo } from '../../src/daemon/services/node-info.js';
import { StreamsService } from '../../src/daemon/services/streams.js';
import { withFaults } from '../helpers/engine.js';
import { adminFetch } from '../helpers/auth.js';
import { nodeServices, postEvent, startNode } from '../helpers/node.js';

const INTERNALS = [/Maximum call stack/i, /\bE[A-Z]{3,}\b: /, /ENOSPC|EMFILE|EIO\b/, /\bat \S+ \(/];

/** The body is exactly `{code, message}` with `code`, and the message leaks no path or internals. */
function assertErrorBody(t: Test, text: string, code: string, what: string, hidden: string[] = []): void {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    t.fail(`${what}: the body is JSON: ${JSON.stringify(text.slice(0, 200))}`);
    return;
  }
  t.same(Object.keys(body).sort(), ['code', 'message'], `${what}: the body is {code, message}`);
  t.equal(body.code, code, `${what}: code ${code}`);
  const message = String(body.message);
  t.ok(message.length > 0, `${what}: a message`);
  for (const secret of [tmpdir(), ...hidden]) t.notOk(message.includes(secret), `${what}: the message does not name ${secret}`);
  for (const pattern of INTERNALS) t.notMatch(message, pattern, `${what}: the message has no ${pattern}`);
}

interface RawReply {
  statusLine: string;
  headers: string;
  body: string;
}

/** Sends exactly `bytes` and reads the reply until the server closes the connection. */
function rawExchange(url: string, bytes: string): Promise<RawReply> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.end(bytes, 'latin1'));
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const split = received.indexOf('\r\n\r\n');
      const head = split < 0 ? received : received.slice(0, split);
      const [statusLine, ...headers] = head.split('\r\n');
      resolve({ statusLine, headers: headers.join('\n'), body: split < 0 ? '' : received.slice(split + 4) });
    });
  });
}

t.test('requests the HTTP parser refuses get a coded JSON reply and a closed connection', async (t) => {
  const node = await startNode(t);
  const cases: Array<[string, string, string, string]> = [
    ['headers over 16 KiB', `GET /ping HTTP/1.1\r\nHost: node\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 'HTTP/1.1 431 Request Header Fields Too Large', Errors.httpHeadersTooLarge.code],
    ['a request line that is not one', 'GARBAGE\r\n\r\n', 'HTTP/1.1 400 Bad Request', Errors.httpRequestInvalid.code],
    ['an unknown protocol version', 'GET /ping HTTX/1.1\r\nHost: node\r\n\r\n', 'HTTP/1.1 400 Bad Request', Errors.httpRequestInvalid.code],
    ['Transfer-Encoding with Content-Length (smuggling)',
      'POST /streams/smuggled HTTP/1.1\r\nHost: node\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\nGET /ping HTTP/1.1\r\n\r\n',
      'HTTP/1.1 400 Bad Request', Errors.httpRequestInvalid.code],
    ['a Content-Length that is not a number', 'POST /streams/x HTTP/1.1\r\nHost: node\r\nContent-Length: abc\r\n\r\n', 'HTTP/1.1 400 Bad Request', Errors.httpRequestInvalid.code],
    ['two different Content-Lengths', 'POST /streams/x HTTP/1.1\r\nHost: node\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab', 'HTTP/1.1 400 Bad Request', Errors.httpRequestInvalid.code],
    ['a control character in a header value', 'GET /ping HTTP/1.1\r\nHost: node\r\nX-Bad: a\u0001b\r\n\r\n', 'HTTP/1.1 400 Bad Request', Errors.httpRequestInvalid.code],
    ['a space in a header name', 'GET /ping HTTP/1.1\r\nHost: node\r\nBad Header: x\r\n\r\n', 'HTTP/1.1 400 Bad Request', Errors.httpRequestInvalid.code],
    ['a control character in the path', 'GET /pi\u007fng HTTP/1.1\r\nHost: node\r\n\r\n', 'HTTP/1.1 400 Bad Request', Errors.httpRequestInvalid.code],
  ];
  for (const [what, bytes, statusLine, code] of cases) {
    const reply = await rawExchange(node.url, bytes);
    t.equal(reply.statusLine, statusLine, `${what}: ${statusLine}`);
    t.match(reply.headers, /^Content-Type: application\/json/mi, `${what}: a JSON body`);
    t.match(reply.headers, /^Connection: close$/mi, `${what}: the connection is closed`);
    assertErrorBody(t, reply.body, code, what);
  }
  t.equal(node.engine.readEvent('smuggled', 0).status === 'success', false, 'the smuggled request wrote nothing');
});

t.test('routed errors are {code, message}; a missing event has its own code', async (t) => {
  const node = await startNode(t);
  await postEvent(`${node.url}/streams/present`, '{"a":1}', { 'content-type': 'application/json', 'svc-eventtype': 'T', 'svc-eventid': randomUUID() });
  const deep = `[${'['.repeat(10_000)}${']'.repeat(10_000)}]`;
  const batch = JSON.stringify([{ eventId: randomUUID(), eventType: 'Deep', data: {} }]).replace('{}', deep);
  const cases: Array<[string, Promise<Response>, number, string]> = [
    ['an unknown path', adminFetch(`${node.url}/nowhere`), 404, Errors.httpNotFound.code],
    ['a missing event', adminFetch(`${node.url}/streams/present/999`, { headers: { accept: 'application/json' } }), 404, Errors.eventNotFound.code],
    ['a missing stream', adminFetch(`${node.url}/streams/absent/0`, { headers: { accept: 'application/json' } }), 404, Errors.streamNotFound.code],
    ['a wrong method', adminFetch(`${node.url}/streams/present`, { method: 'PUT' }), 405, Errors.httpMethodNotAllowed.code],
    ['an unoffered type', adminFetch(`${node.url}/streams/present/0`, { headers: { accept: 'image/png' } }), 406, Errors.httpNotAcceptable.code],
    ['an unsupported body type', adminFetch(`${node.url}/streams/present`, { method: 'POST', body: 'x', headers: { 'content-type': 'image/png' } }), 415, Errors.httpMediaType.code],
    ['a batch that is not JSON', adminFetch(`${node.url}/streams/present`, { method: 'POST', body: '[{', headers: { 'content-type': 'application/vnd.svc.events+json' } }), 400, Errors.httpRequestInvalid.code],
    ['no credentials', fetch(`${node.url}/streams/present`, { headers: { accept: 'application/json' } }), 401, Errors.authRequired.code],
  ];
  for (const [what, pending, status, code] of cases) {
    const response = await pending;
    t.equal(response.status, status, `${what}: ${status}`);
    assertErrorBody(t, await response.text(), code, what);
  }
  // Batch data is stored as sent, so nesting the serializer could not take is no error.
  const nested = await adminFetch(`${node.url}/streams/present`, { method: 'POST', body: batch, headers: { 'content-type': 'application/vnd.svc.events+json' } });
  t.equal(nested.status, 201, 'a batch nested 10,000 deep is stored');
  const missing = await adminFetch(`${node.url}/streams/present/999`, { headers: { accept: 'application/json' } });
  t.equal(missing.statusText, 'Not Found', 'a missing event keeps the reason phrase of the wire protocol');
});

t.test('a storage error reaches the client without file paths or system error text; the log has them', async (t) => {
  const logged: string[] = [];
  const logger = pino({ level: 'info' }, new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logged.push(chunk.toString());
      callback();
    },
  }));
  const services = await nodeServices(t);
  const dataDirectory = `${tmpdir()}/svcdb-data`;
  const chunkFile = `${dataDirectory}/db/chunk-000001.000000`;
  const faulty = withFaults(services.engine, {
    append: async () => {
      throw Errors.storageDiskFull.create(chunkFile, 'ENOSPC: no space left on device, write');
    },
    readEvent: () => {
      throw Errors.storageChecksum.create(chunkFile, 4096);
    },
  });
  const nodeInfo = new NodeInfo('0.0.0-test', { projections: false, userManagement: true, atomPub: true }, { type: 'internal', properties: null }, () => 'leader');
  const app = buildApp({ ...services, logger, nodeInfo, nodeState: () => 'leader', streams: new StreamsService(faulty, services.security.access) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  t.teardown(() => app.close());
  const url = `http://127.0.0.1:${(app.server.address() as net.AddressInfo).port}`;

  const append = await postEvent(`${url}/streams/full`, '{}', { 'content-type': 'application/json', 'svc-eventtype': 'T', 'svc-eventid': randomUUID() });
  t.equal(append.status, 507);
  const body = await append.text();
  assertErrorBody(t, body, Errors.storageDiskFull.code, 'a full disk', [chunkFile, dataDirectory]);
  t.match(JSON.parse(body).message, /full/, 'the message still says the disk is full');

  const read = await adminFetch(`${url}/streams/full/0`, { headers: { accept: 'application/json' } });
  t.equal(read.status, 500);
  assertErrorBody(t, await read.text(), Errors.storageChecksum.code, 'a corrupt record', [chunkFile, dataDirectory]);

  const lines = logged.map((line) => JSON.parse(line) as { msg: string; err?: { message?: string } });
  const failures = lines.filter((line) => line.msg === 'request failed');
  t.ok(failures.some((line) => line.err?.message?.includes(chunkFile) && line.err.message.includes('ENOSPC')), 'the log has the file and the system error');
});
