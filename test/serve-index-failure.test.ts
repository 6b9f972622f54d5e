// `svcdb serve` whose index fails in the background (here an index file removed under the node,
// which a merge then cannot open): the node stops as for any storage failure, logging the error
// and exiting with the I/O exit code, and every append it acknowledged is in the log. It used to
// die of an unhandled rejection at the next append, exit 1 without a log line, and drop that
// append's connection without an answer.
import { randomUUID } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { Errors } from '../src/common/errors.js';
import { ExitCode } from '../src/cli/exit-codes.js';
import { Engine } from '../src/storage/engine.js';
import { adminFetch } from './helpers/auth.js';
import { startServer } from './helpers/cli.js';
import { tempDirectory } from './helpers/engine.js';

const MEM_TABLE_ENTRIES = 100;
const INDEX_FILE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Appended {
  eventId: string;
  stream: string;
  /** The status of the reply; undefined when there was none (the node no longer listened). */
  status?: number;
  /** The event number a 201 acknowledged. */
  eventNumber?: number;
}

async function append(url: string, index: number): Promise<Appended> {
  const appended: Appended = { eventId: randomUUID(), stream: `load-${index % 3}` };
  try {
    const reply = await adminFetch(`${url}/streams/${appended.stream}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'svc-eventtype': 'Load', 'svc-eventid': appended.eventId },
      body: JSON.stringify({ index }),
    });
    await reply.arrayBuffer();
    appended.status = reply.status;
    if (reply.status === 201) appended.eventNumber = Number(reply.headers.get('location')?.split('/').pop());
  } catch {
    // No reply: the node had stopped listening.
  }
  return appended;
}

t.test('a failed index merge stops the node with the I/O exit code and loses no acknowledged append', async (t) => {
  const directory = tempDirectory(t);
  const indexPath = join(directory, 'index');
  const server = await startServer(t, {
    dbPath: join(directory, 'db'), args: ['--index', indexPath, '--max-mem-table-size', String(MEM_TABLE_ENTRIES)],
  });
  const appends: Appended[] = [];
  const appendNext = async () => {
    const appended = await append(server.url, appends.length);
    appends.push(appended);
    return appended;
  };
  while (!readdirSync(indexPath).some((name) => INDEX_FILE.test(name))) t.equal((await appendNext()).status, 201);
  for (const name of readdirSync(indexPath).filter((file) => INDEX_FILE.test(file))) rmSync(join(indexPath, name));

  // The next file written out is merged with the removed one, which fails.
  for (let index = 0; index < MEM_TABLE_ENTRIES * 10; index++) if ((await appendNext()).status === undefined) break;
  const exit = await server.process.exited;

  t.equal(exit.code, ExitCode.io, `exit code ${ExitCode.io}; stderr: ${exit.stderr}`);
  t.ok(server.process.logLines.some((line) => line.msg === 'storage engine stopped'), 'the storage logged that it stopped');
  const exiting = server.process.logLines.find((line) => line.msg === 'exiting with an error');
  t.equal(exiting?.code, Errors.storageIo.code, 'the "exiting with an error" line carries the I/O code');
  const statuses = appends.map((appended) => appended.status);
  const firstRefused = statuses.findIndex((status) => status !== 201);
  t.ok(firstRefused > 0, 'appends went on until the failure');
  t.notOk(statuses.slice(firstRefused).includes(201), 'nothing was acknowledged after the first refusal');
  t.ok(statuses.every((status) => status === 201 || status === 503 || status === undefined), `every other reply is a 503: ${statuses.slice(firstRefused).join(' ')}`);

  // With an index rebuilt from the log, every acknowledged event is where it was acknowledged.
  const engine = await Engine.open({ dbPath: join(directory, 'db'), indexPath: join(directory, 'rebuilt-index') });
  try {
    const missing = appends.filter(({ status, stream, eventNumber, eventId }) => status === 201 && engine.readEvent(stream, eventNumber!).event?.eventId !== eventId);
    t.same(missing, [], 'every acknowledged append is in the log');
  } finally {
    await engine.close();
  }
});
