// `svcdb stream append|read|tail|delete` as a person or a script runs them: child processes
// against a real `svcdb serve` child. Data goes through byte for byte (a big integer, 1.0),
// standard input takes NDJSON, and each refusal has its exit code.
import { join } from 'node:path';
import t from 'tap';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { CliProcess, runCli, startServer, type CliExit, type CliOptions } from '../helpers/cli.js';
import { tempDirectory } from '../helpers/engine.js';

const BIG = '{"n":12345678901234567890123,"f":1.0,"s":"\\u00e9"}';

t.test('the stream commands against a running node', async (t) => {
  const server = await startServer(t, { dbPath: join(tempDirectory(t), 'db') });
  const env = { SVC_URL: server.url };
  const svcdb = (args: string[], options: CliOptions = {}): Promise<CliExit> => runCli(args, { ...options, env: { ...env, ...options.env } });
  const jsonLines = (exit: CliExit) => exit.stdout.trim().split('\n').filter(Boolean);

  t.test('a big integer and 1.0 read back byte for byte', async (t) => {
    const appended = await svcdb(['stream', 'append', 'exact', '--type', 'Measured', '--data', BIG]);
    t.equal(appended.code, ExitCode.success, appended.stderr);
    t.equal(appended.stdout.trim(), 'appended 1 event to exact: event 0');
    const read = await svcdb(['stream', 'read', 'exact', '--json']);
    t.equal(read.code, ExitCode.success, read.stderr);
    const [line] = jsonLines(read);
    t.ok(line.includes(`"data":${BIG}`), `the data is spliced in unchanged: ${line}`);
    t.match(JSON.parse(line), { stream: 'exact', eventNumber: 0, eventType: 'Measured', isJson: true, metadata: null });
    const text = await svcdb(['stream', 'read', 'exact']);
    t.equal(text.stdout, `0@exact\tMeasured\t${BIG}\n`, 'one line per event: number@stream, type, data');
  });

  t.test('standard input: one event per line, as objects or as data with --type', async (t) => {
    const objects = ['{"eventType":"A","data":{"i":1}}', '', '{"eventType":"B","data":[1.50],"metadata":{"m":true}}'].join('\n');
    const first = await svcdb(['stream', 'append', 'ndjson', '--json'], { input: `${objects}\n` });
    t.equal(first.code, ExitCode.success, first.stderr);
    t.same(JSON.parse(first.stdout), { stream: 'ndjson', count: 2, firstEventNumber: 0, lastEventNumber: 1 });
    const second = await svcdb(['stream', 'append', 'ndjson', '-t', 'C', '-e', '1'], { input: '{"i":3}\n{"i":4}\n' });
    t.equal(second.code, ExitCode.success, second.stderr);
    t.equal(second.stdout.trim(), 'appended 2 events to ndjson: events 2 to 3');
    const read = await svcdb(['stream', 'read', 'ndjson', '--json']);
    const events = jsonLines(read).map((line) => JSON.parse(line));
    t.same(events.map((event) => event.eventType), ['A', 'B', 'C', 'C']);
    t.ok(jsonLines(read)[1].includes('"data":[1.50],"metadata":{"m":true}'), 'data and metadata of a line kept as written');
  });

  t.test('read: --from, --count, --backwards', async (t) => {
    const page = await svcdb(['stream', 'read', 'ndjson', '--from', '1', '--count', '2']);
    t.same(page.stdout.trim().split('\n').map((line) => line.split('\t')[0]), ['1@ndjson', '2@ndjson']);
    const last = await svcdb(['stream', 'read', 'ndjson', '-b', '-n', '1']);
    t.equal(last.stdout.split('\t')[0], '3@ndjson', 'newest first');
  });

  t.test('text that is not JSON is stored and read back as text', async (t) => {
    await svcdb(['stream', 'append', 'texts', '-t', 'Note', '-d', '"hello there"']);
    const read = await svcdb(['stream', 'read', 'texts', '--json']);
    t.match(JSON.parse(read.stdout), { isJson: false, data: 'hello there' });
  });

  t.test('--data-file: JSON as it is in the file, other text as text', async (t) => {
    const directory = t.testdir({ 'event.json': `${BIG}\n`, 'note.txt': 'plain words' });
    await svcdb(['stream', 'append', 'files', '-t', 'FromFile', '--data-file', join(directory, 'event.json')]);
    await svcdb(['stream', 'append', 'files', '-t', 'FromFile', '--data-file', join(directory, 'note.txt')]);
    const [json, text] = (await svcdb(['stream', 'read', 'files', '--json'])).stdout.trim().split('\n');
    t.ok(json.includes(`"data":${BIG}`), json);
    t.match(JSON.parse(text), { isJson: false, data: 'plain words' });
  });

  t.test('refusals: each with its exit code, and nothing written', async (t) => {
    const notJson = await svcdb(['stream', 'append', 'refused', '-t', 'X', '-d', 'not json']);
    t.equal(notJson.code, ExitCode.usage);
    t.match(notJson.stderr, /--data: "not json" is not JSON.*SVCDB_ERR_CLIENT_EVENT_INVALID/);
    const badLine = await svcdb(['stream', 'append', 'refused'], { input: '{"data":{}}\n' });
    t.equal(badLine.code, ExitCode.usage);
    t.match(badLine.stderr, /line 1 of standard input: has no "eventType"/);
    const nothing = await svcdb(['stream', 'append', 'refused']);
    t.equal(nothing.code, ExitCode.usage, 'no --data and empty standard input');
    const missing = await svcdb(['stream', 'read', 'refused']);
    t.equal(missing.code, ExitCode.notFound, 'nothing was written to the stream');
    t.match(missing.stderr, /SVCDB_ERR_STREAM_NOT_FOUND/);
    const wrongVersion = await svcdb(['stream', 'append', 'exact', '-t', 'X', '-d', '{}', '--expected-version', 'no-stream']);
    t.equal(wrongVersion.code, ExitCode.wrongExpectedVersion);
    t.match(wrongVersion.stderr, /stream exact is at version 0/);
  });

  t.test('delete: soft, then hard', async (t) => {
    await svcdb(['stream', 'append', 'doomed', '-t', 'X', '-d', '{}']);
    const soft = await svcdb(['stream', 'delete', 'doomed']);
    t.equal(soft.code, ExitCode.success, soft.stderr);
    t.equal((await svcdb(['stream', 'read', 'doomed'])).code, ExitCode.notFound, 'a soft-deleted stream reads as missing');
    const revived = await svcdb(['stream', 'append', 'doomed', '-t', 'X', '-d', '{}']);
    t.equal(revived.stdout.trim(), 'appended 1 event to doomed: event 1', 'an append brings it back, numbering on');
    const hard = await svcdb(['stream', 'delete', 'doomed', '--hard', '--json']);
    t.same(JSON.parse(hard.stdout), { stream: 'doomed', hard: true });
    const after = await svcdb(['stream', 'append', 'doomed', '-t', 'X', '-d', '{}']);
    t.equal(after.code, ExitCode.streamDeleted);
  });

  t.test('tail prints what is there, then follows new events', async (t) => {
    await svcdb(['stream', 'append', 'followed', '-t', 'X', '-d', '{"i":0}']);
    await svcdb(['stream', 'append', 'followed', '-t', 'X', '-d', '{"i":1}']);
    const tail = new CliProcess(['stream', 'tail', 'followed', '--from', '0', '--count', '3', '--json'], { env });
    t.teardown(() => tail.stop('SIGKILL'));
    await tail.waitForLog((line) => line.eventNumber === 1, { description: 'the second event' });
    await svcdb(['stream', 'append', 'followed', '-t', 'X', '-d', '{"i":2}']);
    const exit = await tail.exited;
    t.equal(exit.code, ExitCode.success, exit.stderr);
    t.same(tail.logLines.map((line) => line.data), [{ i: 0 }, { i: 1 }, { i: 2 }]);
  });

  t.test('tail of $all with a filter', async (t) => {
    await svcdb(['stream', 'append', 'filtered', '-t', 'MarkedForTail', '-d', '{"x":1}']);
    const tail = await svcdb(['stream', 'tail', '$all', '--from', '0'.repeat(32), '--event-type-prefix', 'MarkedFor', '--count', '1', '--json']);
    t.equal(tail.code, ExitCode.success, tail.stderr);
    t.match(JSON.parse(tail.stdout), { stream: 'filtered', eventType: 'MarkedForTail', data: { x: 1 } });
    const notAll = await svcdb(['stream', 'read', 'exact', '--event-type-prefix', 'X']);
    t.equal(notAll.code, ExitCode.usage, 'filters are for $all only');
  });
});
