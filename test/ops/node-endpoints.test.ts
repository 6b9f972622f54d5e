// The operator endpoints of a real node (real engine, real server on port 0): /info/options,
// /stats (the reference's whole field table, JSON and XML), /gossip, /metrics and the admin
// commands.
import { randomUUID } from 'node:crypto';
import { adminFetch } from '../helpers/auth.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { pino } from 'pino';
import t from 'tap';
import { configKey } from '../../src/common/options/definition.js';
import { optionKeys } from '../../src/common/options/schema.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { daemonOptions } from '../../src/daemon/options.js';
import { Engine } from '../../src/storage/engine.js';

const silent = pino({ level: 'silent' });
type Json = Record<string, unknown>;

const dir = t.testdir();
const options = daemonOptions({ db: join(dir, 'db'), httpPort: 0, chunkSize: 1024 * 1024, logLevel: 'warn' }, dir);
const daemon = await Daemon.start(options, { logger: silent, version: '9.9.9', openStorage: (engineOptions) => Engine.open(engineOptions) });
t.teardown(() => daemon.stop());
const base = `http://127.0.0.1:${daemon.address.port}`;

async function getJson(path: string, init?: RequestInit): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await adminFetch(`${base}${path}`, init);
  return { status: response.status, headers: response.headers, body: await response.json() };
}

async function append(stream: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await adminFetch(`${base}/streams/${stream}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'svc-eventtype': 'Tested', 'svc-eventid': randomUUID(), 'svc-expectedversion': '-2' },
      body: JSON.stringify({ n: i, padding: 'x'.repeat(100) }),
    });
    if (response.status !== 201) throw new Error(`append answered ${response.status}: ${await response.text()}`);
  }
}

/** The reference's field table: every documented path and its type. `<queue>` and `<drive>` stand for each name. */
const fieldTable: Record<string, 'string' | 'integer' | 'number'> = {
  'proc.startTime': 'string', 'proc.id': 'integer', 'proc.mem': 'integer', 'proc.cpu': 'number', 'proc.cpuScaled': 'number',
  'proc.threadsCount': 'integer', 'proc.contentionsRate': 'number', 'proc.thrownExceptionsRate': 'number',
  'proc.gc.allocationSpeed': 'number', 'proc.gc.gen0ItemsCount': 'number', 'proc.gc.gen1ItemsCount': 'number',
  'proc.gc.gen2ItemsCount': 'number', 'proc.gc.gen0Size': 'number', 'proc.gc.gen1Size': 'number', 'proc.gc.gen2Size': 'number',
  'proc.gc.largeHeapSize': 'number', 'proc.gc.timeInGc': 'number', 'proc.gc.totalBytesInHeaps': 'number',
  'proc.diskIo.readBytes': 'number', 'proc.diskIo.writtenBytes': 'number', 'proc.diskIo.readOps': 'number', 'proc.diskIo.writeOps': 'number',
  'proc.tcp.connections': 'integer', 'proc.tcp.receivingSpeed': 'string', 'proc.tcp.sendingSpeed': 'number', 'proc.tcp.inSend': 'number',
  'proc.tcp.measureTime': 'number', 'proc.tcp.pendingReceived': 'number', 'proc.tcp.pendingSend': 'number',
  'proc.tcp.receivedBytesSinceLastRun': 'number', 'proc.tcp.receivedBytesTotal': 'number',
  'proc.tcp.sentBytesSinceLastRun': 'number', 'proc.tcp.sentBytesTotal': 'number',
  'sys.cpu': 'number', 'sys.freeMem': 'number',
  'sys.drive.<drive>.availableBytes': 'number', 'sys.drive.<drive>.totalBytes': 'number', 'sys.drive.<drive>.usage': 'number',
  'sys.drive.<drive>.usedBytes': 'number',
  'svc.checksum': 'number', 'svc.checksumNonFlushed': 'number',
  'svc.queue.<queue>.queueName': 'string', 'svc.queue.<queue>.groupName': 'string', 'svc.queue.<queue>.avgItemsPerSecond': 'integer',
  'svc.queue.<queue>.avgProcessingTime': 'number', 'svc.queue.<queue>.currentIdleTime': 'string',
  'svc.queue.<queue>.currentItemProcessingTime': 'string', 'svc.queue.<queue>.idleTimePercent': 'number',
  'svc.queue.<queue>.length': 'integer', 'svc.queue.<queue>.lengthCurrentTryPeak': 'number', 'svc.queue.<queue>.lengthLifetimePeak': 'number',
  'svc.queue.<queue>.totalItemsProcessed': 'number', 'svc.queue.<queue>.inProgressMessage': 'string',
  'svc.queue.<queue>.lastProcessedMessage': 'string',
  'svc.writer.lastFlushSize': 'number', 'svc.writer.lastFlushDelayMs': 'number', 'svc.writer.meanFlushSize': 'number',
  'svc.writer.meanFlushDelayMs': 'number', 'svc.writer.maxFlushSize': 'number', 'svc.writer.maxFlushDelayMs': 'number',
  'svc.writer.queuedFlushMessages': 'integer',
  'svc.readIndex.cachedRecord': 'number', 'svc.readIndex.notCachedRecord': 'number', 'svc.readIndex.cachedStreamInfo': 'number',
  'svc.readIndex.notCachedStreamInfo': 'number', 'svc.readIndex.cachedTransInfo': 'number', 'svc.readIndex.notCachedTransInfo': 'number',
  'svc.readIndex.hashCollisions': 'number',
  'svc.authentication.verificationsRunning': 'integer', 'svc.authentication.verificationsRunningMax': 'integer',
  'svc.authentication.verificationsWaiting': 'integer', 'svc.authentication.verificationsWaitingMax': 'integer',
  'svc.authentication.verificationsWaitingPeak': 'integer', 'svc.authentication.verificationsRefused': 'integer',
  'svc.authentication.failedLogins': 'integer', 'svc.authentication.failedLoginSources': 'integer',
  'svc.authentication.throttledSources': 'integer', 'svc.authentication.throttledRequests': 'integer',
};

/** Every concrete path of a documented one: `<queue>` expands to each queue's name. */
function expand(stats: Json, path: string): string[][] {
  let paths: string[][] = [[]];
  for (const segment of path.split('.')) {
    const next: string[][] = [];
    for (const prefix of paths) {
      if (segment.startsWith('<')) {
        const branch = prefix.reduce<any>((node, key) => node?.[key], stats) as Json | undefined;
        for (const name of Object.keys(branch ?? {})) next.push([...prefix, name]);
      } else {
        next.push([...prefix, segment]);
      }
    }
    paths = next;
  }
  return paths;
}

function typeOf(value: unknown): string {
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

t.test('GET /info/options lists every option with its value, source and group', async (t) => {
  const reply = await getJson('/info/options');
  t.equal(reply.status, 200);
  const listed = reply.body as Json[];
  t.same(listed.map((option) => option.name), optionKeys.map(configKey), 'every option, once, in schema order');
  for (const option of listed) {
    t.match(option, { name: String, description: String, group: String, value: String, source: /^(flag|environment|file|default)$/ }, String(option.name));
    t.ok(option.possibleValues === null || Array.isArray(option.possibleValues), `${String(option.name)}: possibleValues`);
  }
  const byName = new Map(listed.map((option) => [option.name, option]));
  t.match(byName.get('HttpPort'), { value: '0', source: 'flag', group: 'Interface', possibleValues: null });
  t.match(byName.get('Db'), { value: join(dir, 'db'), source: 'flag' });
  t.match(byName.get('LogLevel'), { value: 'warn', possibleValues: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] });
  t.match(byName.get('ScavengeHistoryMaxAge'), { value: '30', source: 'default', group: 'Scavenge' });
  t.match(byName.get('AlwaysKeepScavenged'), { value: 'false', deprecated: true, possibleValues: ['true', 'false'] });
  t.match(byName.get('EnableUnixSocket'), { value: 'false', source: 'default' });
});

t.test('GET /stats has every documented field with its type, and the writer figures move after appends', async (t) => {
  await append('stats-warmup', 1);
  const before = (await getJson('/stats')).body as Json;
  for (const [path, type] of Object.entries(fieldTable)) {
    const concrete = expand(before, path);
    t.ok(concrete.length > 0, `${path} is present`);
    for (const segments of concrete) {
      const value = segments.reduce<any>((node, key) => node?.[key], before);
      t.equal(typeOf(value) === 'integer' && type === 'number' ? 'number' : typeOf(value), type, `${segments.join('.')} is a ${type}`);
    }
  }
  const queues = Object.keys((before.svc as any).queue);
  t.ok(queues.includes('StorageWriter') && queues.includes('HttpRequests'), 'the writer and HTTP request queues are reported');
  t.ok(Object.keys((before.sys as any).drive).length >= 1, 'the drive of the database is reported');
  t.equal((before.proc as any).id, process.pid);
  // The node runs in this process, so proc.mem is this process's resident memory, far below its
  // virtual size (V8 reserves address space it never uses).
  const status = readFileSync('/proc/self/status', 'utf8');
  const kibOf = (name: string) => Number(new RegExp(`^${name}:\\s*(\\d+)`, 'm').exec(status)![1]) * 1024;
  const mem = (before.proc as any).mem as number;
  t.ok(mem > kibOf('VmRSS') / 2 && mem < kibOf('VmRSS') * 2, `proc.mem (${mem}) is the resident memory (VmRSS ${kibOf('VmRSS')})`);
  t.ok(mem < kibOf('VmSize') / 2, `proc.mem is not the virtual size (VmSize ${kibOf('VmSize')})`);

  await append('stats-moves', 20);
  const after = (await getJson('/stats')).body;
  const earlier = before as any;
  t.ok(after.svc.checksum > earlier.svc.checksum, 'the writer checkpoint advanced');
  t.ok(after.svc.writer.totalFlushes >= earlier.svc.writer.totalFlushes + 20, 'every append was flushed');
  t.ok(after.svc.writer.lastFlushSize > 100, 'the last flush wrote the event');
  t.ok(after.svc.writer.maxFlushSize >= after.svc.writer.lastFlushSize);
  t.ok(after.svc.writer.meanFlushSize > 0);
  t.ok(after.svc.queue.StorageWriter.totalItemsProcessed >= earlier.svc.queue.StorageWriter.totalItemsProcessed + 20, 'the writer queue processed the appends');
  t.ok(after.svc.queue.StorageWriter.lengthLifetimePeak >= 1);
  t.ok(after.svc.queue.HttpRequests.totalItemsProcessed > earlier.svc.queue.HttpRequests.totalItemsProcessed, 'HTTP requests counted');
  t.ok(after.proc.tcp.receivedBytesTotal > earlier.proc.tcp.receivedBytesTotal, 'bytes received counted');
  t.ok(after.svc.readIndex.cachedStreamInfo + after.svc.readIndex.notCachedStreamInfo
    > earlier.svc.readIndex.cachedStreamInfo + earlier.svc.readIndex.notCachedStreamInfo, 'stream info lookups counted');
  t.equal(after.svc.checksumNonFlushed, after.svc.checksum, 'nothing is left unflushed once appends are acknowledged');
});

t.test('GET /stats/{path} answers one branch or value; an unknown path is 404', async (t) => {
  const gc = await getJson('/stats/proc/gc');
  t.equal(gc.status, 200);
  t.match(gc.body, { gen0ItemsCount: Number, totalBytesInHeaps: Number });
  const writer = await getJson('/stats/svc/writer/lastFlushSize');
  t.equal(typeof writer.body, 'number');
  const missing = await getJson('/stats/proc/nothing-here');
  t.equal(missing.status, 404);
  t.equal(missing.body.code, 'SVCDB_ERR_HTTP_NOT_FOUND');
  const flat = await getJson('/stats?group=false');
  t.equal(typeof flat.body['proc-mem'], 'number', 'group=false gives flat proc-mem keys');
  t.equal(flat.body['svc-queue-StorageWriter-queueName'], 'StorageWriter');
  t.equal(flat.headers.get('cache-control'), 'max-age=1, public');
});

t.test('GET /stats as XML parses, with the root Stats', async (t) => {
  const parser = new XMLParser({ parseTagValue: true });
  for (const init of [{ headers: { accept: 'application/xml' } }, { headers: { accept: 'text/xml' } }]) {
    const response = await adminFetch(`${base}/stats`, init);
    t.equal(response.status, 200);
    t.match(response.headers.get('content-type'), /^application\/xml/);
    const document = parser.parse(await response.text(), true);
    t.ok(document.Stats, 'root element Stats');
    t.equal(document.Stats.proc.id, process.pid);
    t.equal(typeof document.Stats.svc.writer.lastFlushSize, 'number');
    t.equal(document.Stats.svc.queue.StorageWriter.queueName, 'StorageWriter');
    const drives = Object.keys(document.Stats.sys.drive);
    t.ok(drives.length >= 1 && drives.every((name) => /^[A-Za-z_][\w.-]*$/.test(name)), 'drive paths are encoded as element names');
    t.ok(drives.some((name) => name.startsWith('_x002F_')), 'a leading / is encoded as _x002F_');
  }
  const branch = await adminFetch(`${base}/stats/svc/writer?format=xml`);
  const parsed = parser.parse(await branch.text());
  t.equal(typeof parsed.Stats.lastFlushSize, 'number', '?format=xml on a branch');
  const bad = await adminFetch(`${base}/stats?format=yaml`);
  t.equal(bad.status, 400);
});

t.test('GET /gossip: this node as the single leader member, with its checkpoints and epoch', async (t) => {
  const reply = await getJson('/gossip');
  t.equal(reply.status, 200);
  const { members, serverIp, serverPort } = reply.body;
  t.equal(serverIp, '127.0.0.1');
  t.equal(serverPort, daemon.address.port);
  t.equal(members.length, 1);
  const [member] = members;
  t.same(Object.keys(member).sort(), [
    'instanceId', 'timeStamp', 'state', 'isAlive', 'internalTcpIp', 'internalTcpPort', 'internalSecureTcpPort', 'externalTcpIp',
    'externalTcpPort', 'externalSecureTcpPort', 'httpEndPointIp', 'httpEndPointPort', 'advertiseHostToClientAs',
    'advertiseHttpPortToClientAs', 'advertiseTcpPortToClientAs', 'lastCommitPosition', 'writerCheckpoint', 'chaserCheckpoint',
    'epochPosition', 'epochNumber', 'epochId', 'nodePriority', 'isReadOnlyReplica',
  ].sort(), 'the members fields of the wire note');
  t.match(member, {
    instanceId: /^[0-9a-f-]{36}$/, state: 'Leader', isAlive: true, httpEndPointIp: '127.0.0.1', httpEndPointPort: daemon.address.port,
    epochNumber: 0, epochPosition: 0, epochId: /^[0-9a-f-]{36}$/, advertiseHostToClientAs: null, isReadOnlyReplica: false,
  });
  t.ok(!Number.isNaN(Date.parse(member.timeStamp)));
  const stats = (await getJson('/stats/svc')).body;
  t.equal(member.writerCheckpoint, stats.checksum, 'the writer checkpoint matches /stats');
  t.ok(member.lastCommitPosition >= member.epochPosition);
});

t.test('POST /gossip validates the update and keeps this node leader', async (t) => {
  const other = {
    instanceId: randomUUID(), state: 'Leader', isAlive: true, httpEndPointIp: '127.0.0.2', httpEndPointPort: 2113, epochNumber: 4,
  };
  const accepted = await getJson('/gossip', {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ members: [other], serverIp: '127.0.0.2', serverPort: 2113 }),
  });
  t.equal(accepted.status, 200);
  t.equal(accepted.body.members.length, 1, 'the answer is this node\'s own view');
  t.equal(accepted.body.members[0].state, 'Leader');
  t.not(accepted.body.members[0].instanceId, other.instanceId);
  for (const serverIp of ['fe80::1%eth0', 'node-2.cluster.example', '[::1]']) {
    const reply = await getJson('/gossip', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ members: [other], serverIp, serverPort: 2113 }) });
    t.equal(reply.status, 200, `${serverIp} is an address`);
  }

  for (const body of [{ serverIp: 'x', serverPort: 1 }, { members: [{ ...other, instanceId: 'not-a-uuid' }], serverIp: 'x', serverPort: 1 },
    { members: [{ ...other, state: 'Boss' }], serverIp: 'x', serverPort: 1 },
    // The sender's address is logged: an unbounded or free-text one must not reach the log.
    { members: [other], serverIp: 'X'.repeat(500), serverPort: 1 }, { members: [other], serverIp: '1.2.3.4\n{"level":40}', serverPort: 1 },
    { members: [{ ...other, httpEndPointIp: 'a host' }], serverIp: 'x', serverPort: 1 }]) {
    const rejected = await getJson('/gossip', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    t.equal(rejected.status, 400, JSON.stringify(body).slice(0, 200));
    t.equal(rejected.body.code, 'SVCDB_ERR_HTTP_REQUEST_INVALID');
  }
});

t.test('GET /metrics parses as Prometheus text with the /stats figures', async (t) => {
  const response = await adminFetch(`${base}/metrics`);
  t.equal(response.status, 200);
  t.match(response.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  const families = parsePrometheusTextFormat(await response.text());
  const byName = new Map(families.map((family) => [family.name, family]));
  t.ok(families.length > 50, 'the curated series and the process and Node.js defaults');
  t.equal(byName.get('svcdb_writer_flushes_total')?.type, 'COUNTER');
  t.ok(Number(byName.get('svcdb_writer_flushes_total')?.metrics[0].value) >= 21, 'the flushes of the appends');
  const queueLengths = byName.get('svcdb_queue_length')?.metrics ?? [];
  t.same(queueLengths.map((metric) => metric.labels?.queue).sort(), ['HttpRequests', 'StorageWriter'], 'queues are labels');
  t.ok(byName.get('svcdb_drive_available_bytes')?.metrics[0].labels?.drive, 'drives are labels');
  const stats = (await getJson('/stats')).body;
  t.equal(Number(byName.get('svcdb_drive_size_bytes')?.metrics[0].value), (Object.values(stats.sys.drive)[0] as Json).totalBytes, 'the /stats figure');
  const startSeconds = Number(byName.get('process_start_time_seconds')?.metrics[0].value);
  t.ok(Math.abs(startSeconds - Date.parse(stats.proc.startTime) / 1000) <= 1, 'the process defaults, in seconds since the epoch');
  t.match(byName.get('svcdb_build_info')?.metrics, [{ labels: { version: '9.9.9' }, value: '1' }]);
  const again = parsePrometheusTextFormat(await (await adminFetch(`${base}/metrics`)).text());
  t.equal(again.length, families.length, 'a second scrape has the same families');
});

t.test('POST /admin/mergeindexes answers with an id', async (t) => {
  const reply = await getJson('/admin/mergeindexes', { method: 'POST' });
  t.equal(reply.status, 200);
  t.match(reply.body, { mergeIndexesId: /^[0-9a-f-]{36}$/ });
});

t.test('/stats and /metrics report the log consumers by name: long polls follow the log once one waits', async (t) => {
  const poll = adminFetch(`${base}/streams/consumer-probe/0/forward/20`, {
    headers: { accept: 'application/vnd.svc.atom+json', 'svc-longpoll': '30' },
  });
  const deadline = Date.now() + 10_000;
  let consumers: Json = {};
  while (consumers['long-polls'] === undefined) {
    if (Date.now() > deadline) throw new Error('gave up waiting for the long-poll consumer in /stats');
    consumers = (await getJson('/stats')).body.svc.consumers as Json;
  }
  await append('consumer-probe', 1);
  const answered = await poll;
  t.equal(answered.status, 200, 'the waiting read was answered');
  const entry = ((await getJson('/stats')).body.svc.consumers as Json)['long-polls'] as Json;
  t.match(entry, { state: /^(idle|running)$/, position: Number, behindBytes: Number, pagesHandled: Number });
  t.notOk('error' in entry, 'a healthy consumer reports no error');
  const metrics = parsePrometheusTextFormat(await (await adminFetch(`${base}/metrics`)).text());
  const positions = metrics.find((family) => family.name === 'svcdb_consumer_position_bytes')?.metrics ?? [];
  t.match(positions, [{ labels: { consumer: 'long-polls' } }], 'consumers are labels in /metrics');
});


t.test('POST /admin/shutdown answers 200, then stops the node cleanly', async (t) => {
  const response = await adminFetch(`${base}/admin/shutdown`, { method: 'POST' });
  t.equal(response.status, 200);
  const result = await daemon.stopped;
  t.same(result.cause, { kind: 'request' });
  t.equal(result.error, undefined, 'a clean stop');
  t.equal(daemon.state, 'shutdown');
});
