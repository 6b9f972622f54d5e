// JSON data comes back as the client sent it, however deep: the single event's data
// (`application/json`), the event document, the Atom entry and feeds embed the stored bytes
// verbatim instead of parsing and serializing them again, which rounded big integers, turned
// `1.0` into `1`, lost escapes, and returned data nested beyond 512 levels as a JSON string.
import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { adminFetch } from '../helpers/auth.js';
import { postEvent, startNode } from '../helpers/node.js';

const ATOM_JSON = 'application/vnd.svc.atom+json';

/** A document whose numbers, escapes, duplicate keys and spacing a parse-and-serialize would change. */
const EXOTIC = '{ "z" : 1.0, "a":1e2,"n":-0, "big": 12345678901234567890123,\n "s": "\\u00e9\\"q\\/", "dup": 1, "dup": 2 ,"arr":[ 1 , 2.50 ], "e": {} }\n';
const nested = (depth: number) => `${'[{"k":1.0,"v":'.repeat(depth)}12345678901234567890123${'}]'.repeat(depth)}`;

const CASES: Array<[string, string]> = [
  ['exotic numbers, escapes, key order and spacing', EXOTIC],
  ['nested 600 levels', nested(600)],
  ['nested 10,000 levels', nested(10_000)],
  ['a top-level number', '12345678901234567890123'],
];

// Chunks big enough for the 10,000-level document (the test default is 64 KiB).
const node = await startNode(t, { engine: { chunkSizeBytes: 1024 * 1024 } });

async function text(path: string, accept: string): Promise<string> {
  const response = await adminFetch(`${node.url}${path}`, { headers: { accept } });
  if (response.status !== 200) throw new Error(`GET ${path} (${accept}) answered ${response.status}: ${await response.text()}`);
  return response.text();
}

/** Not t.equal: a failure would print megabytes of diff. */
function contains(t: Test, haystack: string, needle: string, what: string): void {
  t.ok(haystack.includes(needle), what);
}

async function appendRaw(stream: string, data: string): Promise<void> {
  const response = await postEvent(`${node.url}/streams/${stream}`, data, {
    'content-type': 'application/json', 'svc-eventtype': 'Raw', 'svc-eventid': randomUUID(),
  });
  if (response.status !== 201) throw new Error(`append to ${stream} answered ${response.status}: ${await response.text()}`);
}

CASES.forEach(([what, sent], index) => {
  t.test(`${what}: every JSON representation carries the bytes as sent`, async (t) => {
    const stream = `raw-json-${index}`;
    await appendRaw(stream, sent);

    const data = await adminFetch(`${node.url}/streams/${stream}/0`, { headers: { accept: 'application/json' } });
    t.equal(data.status, 200);
    t.ok(Buffer.from(await data.arrayBuffer()).equals(Buffer.from(sent)), 'application/json: the data alone, byte for byte');

    const document = await text(`/streams/${stream}/0`, 'application/vnd.svc.event+json');
    contains(t, document, `"data":${sent},"metadata":""}`, 'the event document embeds the data verbatim');
    t.equal((JSON.parse(document) as { eventType: string }).eventType, 'Raw', 'and is JSON');

    const entry = await text(`/streams/${stream}/0`, ATOM_JSON);
    contains(t, entry, `"data":${sent}`, 'the Atom entry\'s content embeds the data verbatim');
    JSON.parse(entry);

    const content = await text(`/streams/${stream}?embed=content`, ATOM_JSON);
    contains(t, content, `"data":${sent}`, 'a feed with embed=content embeds the data verbatim');

    const body = await text(`/streams/${stream}?embed=body`, ATOM_JSON);
    contains(t, body, `"data":${JSON.stringify(sent)}`, 'a feed with embed=body carries the data as the string of the bytes sent');
    const [first] = (JSON.parse(body) as { entries: Array<{ data: string; isJson: boolean }> }).entries;
    t.equal(first.isJson, true, 'isJson: true');
    t.ok(first.data === sent, 'the string is the data, byte for byte');
  });
});

t.test('JSON metadata comes back as sent too', async (t) => {
  const batch = JSON.stringify([{ eventId: randomUUID(), eventType: 'WithMeta', data: EXOTIC, metadata: EXOTIC }]);
  const response = await adminFetch(`${node.url}/streams/raw-meta`, { method: 'POST', body: batch, headers: { 'content-type': 'application/vnd.svc.events+json' } });
  t.equal(response.status, 201);
  const document = await text('/streams/raw-meta/0', 'application/vnd.svc.event+json');
  contains(t, document, `"data":${EXOTIC},"metadata":${EXOTIC}}`, 'data and metadata verbatim in the event document');
  const body = await text('/streams/raw-meta?embed=body', ATOM_JSON);
  contains(t, body, `"metaData":${JSON.stringify(EXOTIC)}`, 'metadata as sent in a feed with embed=body');
});

t.test('embed=pretty re-indents without changing numbers, escapes or keys', async (t) => {
  await appendRaw('raw-pretty', EXOTIC);
  const feed = JSON.parse(await text('/streams/raw-pretty?embed=pretty', ATOM_JSON)) as { entries: Array<{ data: string }> };
  t.equal(feed.entries[0].data, [
    '{',
    '  "z": 1.0,',
    '  "a": 1e2,',
    '  "n": -0,',
    '  "big": 12345678901234567890123,',
    '  "s": "\\u00e9\\"q\\/",',
    '  "dup": 1,',
    '  "dup": 2,',
    '  "arr": [',
    '    1,',
    '    2.50',
    '  ],',
    '  "e": {}',
    '}',
  ].join('\n'));
  await appendRaw('raw-pretty-deep', `{"deep":${nested(600)}}`);
  const deep = JSON.parse(await text('/streams/raw-pretty-deep?embed=pretty', ATOM_JSON)) as { entries: Array<{ data: string }> };
  t.ok(deep.entries[0].data === `{"deep":${nested(600)}}`, 'an object nested deeper than 512 levels is shown as sent');
});

t.test('JSON-flagged data that is not JSON is still a string', async (t) => {
  await appendRaw('raw-not-json', '{"unterminated": ');
  t.equal(await text('/streams/raw-not-json/0', 'application/json'), JSON.stringify('{"unterminated": '));
  const document = JSON.parse(await text('/streams/raw-not-json/0', 'application/vnd.svc.event+json')) as { data: unknown };
  t.equal(document.data, '{"unterminated": ');
});

t.test('a client string that looks like a splice marker stays a string', async (t) => {
  const sneaky = '{"a":"svcdb-json-text-00000000000000000000000000000000:0"}';
  await appendRaw('raw-sneaky', sneaky);
  const document = await text('/streams/raw-sneaky/0', 'application/vnd.svc.event+json');
  contains(t, document, `"data":${sneaky}`, 'spliced as sent');
});
