/**
 * A node's identity: which node a backup came from, so that a backup of one node is never mixed
 * with another's (the reference's rule 3), and the name a cluster member registers under in etcd.
 *
 * Why a file of its own, `<db>/svcdb-node.json`, holding a random UUID:
 * - Nothing in the log can tell nodes apart. Chunk headers, epochs and every record are meant to
 *   be replicated (DESIGN.md §9), so the nodes of one cluster share them; and chunk 0's header id
 *   changes whenever a scavenge rewrites chunk 0, which would make a node look like another.
 * - The file is node-local state the engine ignores (it reads only chunk and checkpoint names),
 *   no scavenge or replication touches it, and a backup never copies it. So a node keeps its
 *   identity for its whole life, and a node restored from a backup, which has none, gets a new
 *   one at its first backup: a differential backup of a restored node into the old destination is
 *   refused, which is the reference's rule 5 (after a restore, take a full backup).
 * - The first backup of a node, or its first start as a cluster member, creates it. It is written complete under a temp name and linked
 *   into place (link(2) fails if the name exists), so two backups starting at once agree on one
 *   identity and a crash never leaves half a file.
 *
 * A copy of the data directories made by hand (cp -r) carries the file along: such a copy is the
 * same node as far as backups can tell. svcdb restore never does that.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Errors } from '../../common/errors.js';
import { fsyncDirectory } from './durable-file.js';
import { PRIVATE_FILE_MODE } from './file-modes.js';
import { fileSystem } from './file-system.js';
import { storageError, writeFully } from './file-write.js';
import { NODE_IDENTITY_FILE_NAME } from '../layout.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface NodeIdentityFile {
  nodeId: string;
  createdAt: string;
}

/** The node's identity, or undefined when it has none yet. */
export async function readNodeIdentity(db: string): Promise<string | undefined> {
  const path = join(db, NODE_IDENTITY_FILE_NAME);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let parsed: Partial<NodeIdentityFile> | undefined;
  try {
    parsed = JSON.parse(text) as Partial<NodeIdentityFile>;
  } catch {
    parsed = undefined;
  }
  if (typeof parsed?.nodeId !== 'string' || !UUID.test(parsed.nodeId)) {
    throw Errors.storageCorrupt.create(path, 0, 'not a node identity file; delete it and the next backup writes a new one (then take a full backup)');
  }
  return parsed.nodeId;
}

/** How a caller reports a failed write of the file: by default as a storage error. */
export type IdentityWriteError = (path: string, operation: string, error: unknown) => Error;

/** The node's identity, created on first use. */
export async function nodeIdentity(db: string, writeError: IdentityWriteError = storageError): Promise<string> {
  const existing = await readNodeIdentity(db);
  if (existing !== undefined) return existing;
  const path = join(db, NODE_IDENTITY_FILE_NAME);
  const identity: NodeIdentityFile = { nodeId: randomUUID(), createdAt: new Date().toISOString() };
  const temp = `${path}.${identity.nodeId}.tmp`;
  try {
    await writeSynced(temp, `${JSON.stringify(identity)}\n`);
  } catch (error) {
    throw writeError(path, 'write the node identity (recorded in the db directory at the first backup or cluster start)', error);
  }
  try {
    fileSystem.linkSync(temp, path);
    await fsyncDirectory(db);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await fileSystem.unlink(temp);
  }
  // Whoever linked first won; everyone reads the winner.
  return (await readNodeIdentity(db))!;
}

async function writeSynced(path: string, text: string): Promise<void> {
  const bytes = Buffer.from(text);
  const handle = await fileSystem.open(path, 'wx', PRIVATE_FILE_MODE);
  try {
    await writeFully(handle, bytes, 0, bytes.length, 0, path);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
