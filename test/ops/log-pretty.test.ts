// The readable log line of one pino record: time, level, message, then key=value fields, quoted
// only where a value has a space, a quote or an equals sign, an error as its type, code and
// message without the stack, and never the record's JSON.
import { Chalk } from 'chalk';
import t from 'tap';
import { resolveLogFormat } from '../../src/daemon/log.js';
import { prettyLine } from '../../src/daemon/log-pretty.js';

const plain = new Chalk({ level: 0 });
const time = new Date(2026, 0, 2, 3, 4, 5, 6).getTime();

t.test('fields follow the message as key=value, quoted only when needed', async (t) => {
  const line = JSON.stringify({ level: 30, time, pid: 1, hostname: 'vm', component: 'http', port: 2113, path: '/var/lib/svcdb db', ok: true, users: ['admin', 'ops'], msg: 'listening' });
  t.equal(prettyLine(line, plain), '03:04:05.006 INFO  listening component=http port=2113 path="/var/lib/svcdb db" ok=true users=["admin","ops"]');
});

t.test('an error is one field without its stack, and a multi-line message stays on one line', async (t) => {
  const err = { type: 'SvcError', code: 'SVCDB_ERR_STORAGE_IO', message: 'fsync failed', stack: 'SvcError: fsync failed\n    at x (y.js:1:1)' };
  const line = JSON.stringify({ level: 50, time, msg: 'storage\nstopped', err });
  t.equal(prettyLine(line, plain), '03:04:05.006 ERROR storage stopped err="SvcError SVCDB_ERR_STORAGE_IO: fsync failed"');
});

t.test('each level has its name; text that is not a record is kept as it is', async (t) => {
  const names = [10, 20, 30, 40, 50, 60].map((level) => prettyLine(JSON.stringify({ level, time, msg: 'm' }), plain).split(' ')[1]);
  t.same(names, ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL']);
  t.equal(prettyLine('not json\n', plain), 'not json');
  // eslint-disable-next-line no-control-regex -- the escape that starts a colour
  t.match(prettyLine(JSON.stringify({ level: 40, time, msg: 'm' }), new Chalk({ level: 1 })), /\u001b\[33mWARN/, 'WARN in yellow when colours are on');
});

t.test('auto is pretty on a terminal and JSON anywhere else; json and pretty are taken as given', async (t) => {
  t.equal(resolveLogFormat('auto', true), 'pretty');
  t.equal(resolveLogFormat('auto', false), 'json');
  t.equal(resolveLogFormat('json', true), 'json');
  t.equal(resolveLogFormat('pretty', false), 'pretty');
});
