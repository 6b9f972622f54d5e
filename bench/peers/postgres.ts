/**
 * PostgreSQL as a peer: a scratch cluster (initdb into a temp directory) run in the foreground,
 * with fsync and synchronous_commit on, listening on a free loopback port and on a unix socket in
 * its directory; the events are rows of one table, appended through the `pg` client.
 */
import { execa, execaSync, type ResultPromise } from 'execa';
import { chownSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { firstExecutable, freePort, onPath, scratchDirectory, startUntilReady } from './child.js';
import { EVENT_TYPE, PAYLOAD, type RunningSystem, type Session, type System, type Work } from './workloads.js';

const BATCH_ROWS = 20;
const BATCH_CLIENTS = 50;

const TABLE = 'create table events (id bigserial, stream text, version bigint, type text, data jsonb, unique (stream, version))';
/** The version check of an event store: the next version is computed from the stream's last. */
const APPEND_ONE = `insert into events (stream, version, type, data)
  select $1::text, coalesce(max(version), -1) + 1, $2::text, $3::jsonb from events where stream = $1::text`;
/** Each client owns its stream and counts its versions; the unique constraint still checks them. */
const APPEND_BATCH = `insert into events (stream, version, type, data) values ${
  Array.from({ length: BATCH_ROWS }, (_, row) => `($1, $${3 + 2 * row}, $2, $${4 + 2 * row})`).join(', ')}`;

interface Binaries {
  initdb: string;
  postgres: string;
}

/** initdb and postgres from PATH, else from the newest /usr/lib/postgresql/<version>/bin. */
function binaries(): Binaries | undefined {
  const initdb = onPath('initdb');
  const postgres = onPath('postgres');
  if (initdb && postgres) return { initdb, postgres };
  let versions: string[] = [];
  try {
    versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  } catch {
    return undefined; // No packaged PostgreSQL either.
  }
  const directory = versions.map((version) => `/usr/lib/postgresql/${version}/bin`).find((bin) => firstExecutable([join(bin, 'postgres')]));
  return directory ? { initdb: join(directory, 'initdb'), postgres: join(directory, 'postgres') } : undefined;
}

/** PostgreSQL refuses to run as root: then the cluster belongs to the postgres user (or nobody). */
function serverAccount(): { prefix: string[]; uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    const uid = execaSync('id', ['-u', name], { reject: false });
    const gid = execaSync('id', ['-g', name], { reject: false });
    if (uid.exitCode === 0 && gid.exitCode === 0) {
      return { prefix: ['setpriv', `--reuid=${uid.stdout}`, `--regid=${gid.stdout}`, '--clear-groups'], uid: Number(uid.stdout), gid: Number(gid.stdout) };
    }
  }
  throw new Error('running as root, and neither a postgres nor a nobody user exists to run PostgreSQL as');
}

async function connect(port: number): Promise<pg.Client> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'bench', database: 'postgres' });
  await client.connect();
  return client;
}

/** The WAL fdatasyncs of the whole cluster (in pg_stat_io from PostgreSQL 18 on). */
async function walSyncs(admin: pg.Client, version: number): Promise<number> {
  // This connection's own counts are published when it goes idle after this statement.
  await admin.query('select pg_stat_force_next_flush()');
  const sql = version >= 180000 ? "select sum(fsyncs) as syncs from pg_stat_io where object = 'wal'" : 'select wal_sync as syncs from pg_stat_wal';
  const { rows } = await admin.query<{ syncs: string }>(sql);
  return Number(rows[0].syncs);
}

async function open(port: number, work: Work): Promise<Session> {
  const clients = work.kind === 'single' ? work.clients : BATCH_CLIENTS;
  const connections = await Promise.all(Array.from({ length: clients }, () => connect(port)));
  const close = async () => {
    await Promise.all(connections.map((connection) => connection.end()));
  };
  if (work.kind === 'single') {
    return {
      clients, eventsPerRequest: 1, shape: 'version-checked insert, one row per transaction', close,
      send: (client) => connections[client].query({ name: 'append-one', text: APPEND_ONE, values: [`single-${clients}-${client}`, EVENT_TYPE, PAYLOAD] }),
    };
  }
  const nextVersions = new Array<number>(clients).fill(0);
  return {
    clients, eventsPerRequest: BATCH_ROWS, shape: `${BATCH_ROWS}-row insert, ${clients} clients`, close,
    send: (client) => {
      const values: unknown[] = [`batch-${client}`, EVENT_TYPE];
      for (let row = 0; row < BATCH_ROWS; row++) values.push(nextVersions[client]++, PAYLOAD);
      return connections[client].query({ name: 'append-batch', text: APPEND_BATCH, values });
    },
  };
}

async function start(prefix: string[], found: Binaries): Promise<RunningSystem> {
  const directory = scratchDirectory('postgres');
  const account = serverAccount();
  if (account) chownSync(directory, account.uid, account.gid);
  const asServer = account?.prefix ?? [];
  const data = join(directory, 'data');
  let server: ResultPromise | undefined;
  try {
    // --no-sync speeds up initdb only; the server below runs with fsync on.
    const [initdb, ...initdbArgs] = [...asServer, found.initdb, '-D', data, '-U', 'bench', '-A', 'trust', '-E', 'UTF8', '--no-sync'];
    await execa(initdb, initdbArgs);
    const port = await freePort();
    ({ child: server } = await startUntilReady([...prefix, ...asServer, found.postgres, '-D', data,
      '-c', 'fsync=on', '-c', 'synchronous_commit=on', '-c', 'listen_addresses=127.0.0.1', '-c', `port=${port}`,
      '-c', `unix_socket_directories=${directory}`], /ready to accept connections/));
    const admin = await connect(port);
    await admin.query(TABLE);
    const { rows } = await admin.query<{ server_version_num: string }>('show server_version_num');
    const version = Number(rows[0].server_version_num);
    const postmaster = server;
    return {
      pid: postmaster.pid!,
      open: (work) => open(port, work),
      syncs: () => walSyncs(admin, version),
      stop: async () => {
        await admin.end();
        // SIGINT is PostgreSQL's fast shutdown: connections are closed, a checkpoint written.
        postmaster.kill('SIGINT');
        await postmaster;
        rmSync(directory, { recursive: true, force: true });
      },
    };
  } catch (error) {
    server?.kill('SIGINT');
    await server;
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
}

export const postgresql: System = {
  label: 'PostgreSQL',
  missing: () => (binaries() ? undefined : 'PostgreSQL is not installed: `apt-get install -y postgresql` adds it'),
  start: (prefix) => start(prefix, binaries()!),
};
