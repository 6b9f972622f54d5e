/**
 * `svcdb backup verify`: checks a backup without starting a node, with the storage modules' own
 * readers, and lists everything wrong rather than stopping at the first problem.
 *
 * - the manifest: present, and the backup finished;
 * - the database checkpoints: present, 8 bytes, chaser <= writer, epoch < writer;
 * - the chunks: numbered from 0 without a gap, one chunk size, every chunk but the last completed
 *   and matching the MD5 in its footer (storage/chunk.ts verifyHash), and the records of an
 *   ongoing last chunk whole and passing their checksums up to writer.chk;
 * - the index: indexmap's checksum, every file it lists present and matching its own MD5
 *   (storage/index/index-file.ts); bloom filters and the existence filter are checked too, but a
 *   damaged one is only a warning because the node repairs or rebuilds it;
 * - the scavenge state: SQLite's quick_check on a scratch copy (a read would create files beside it).
 *
 * It says which backup the folder holds (`holds`): the last one that finished; or, when a later
 * backup into it was interrupted, that last complete backup (the run had not written its new log
 * yet) or the new log (it had, and only its clean-up was left). manifest.ts and target.ts explain
 * why each is whole.
 *
 * Problems make it fail with SVCDB_ERR_BACKUP_CORRUPT (exit 4) listing each file; warnings are
 * reported with a passing result.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, readdir, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Errors, isSvcError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { BloomFilter } from '../../storage/index/bloom-filter.js';
import {
  CheckpointName, INDEXMAP_FILE, IndexPath, indexFileIdOf, isIndexDataFile, parseChunkFileName, sortChunkFiles,
} from '../../storage/layout.js';
import { Chunk } from '../../storage/log/chunk.js';
import { IndexFile } from '../../storage/index/index-file.js';
import { readIndexMap, type IndexMap } from '../../storage/index/indexmap.js';
import { quickCheckCopy } from '../../storage/maintenance/scavenge/state-db.js';
import { extractArchive, isArchive, readArchiveManifest } from './archive-reader.js';
import { readChunkState } from './chunk-copy.js';
import { exists } from './file-copy.js';
import { BACKUP_DB_DIRECTORY, BACKUP_INDEX_DIRECTORY } from './layout.js';
import { lockOwnerPid } from '../../storage/disk/lock.js';
import { checkComplete, readManifest, type BackupManifest, type RunningBackup } from './manifest.js';
import { Tally, type ProgressListener } from './progress.js';
import { readCheckpointAt } from './source.js';

export interface VerifyRequest {
  /** A backup folder or archive. */
  source: string;
  onProgress?: ProgressListener;
}

export interface Problem {
  file: string;
  problem: string;
}

/** Which backup a folder's files hold. */
export type BackupHeld =
  /** The last backup that finished; no backup into the folder was interrupted since. */
  | 'last-backup'
  /** A later backup was interrupted before it wrote the new log: the folder holds the one before. */
  | 'previous-backup'
  /** A later backup was interrupted after it wrote a new log: the folder holds that log. */
  | 'interrupted-backup';

export interface VerifyResult {
  source: string;
  archive: boolean;
  nodeId: string;
  /** How the last backup that finished was taken, when it started and finished. */
  kind: BackupManifest['kind'];
  startedAt: string;
  finishedAt?: string;
  /** How many backups finished writing the folder (absent in manifests of earlier versions). */
  generation?: number;
  holds: BackupHeld;
  /** The backup into the folder that began after the last complete one and did not finish. */
  interrupted?: RunningBackup & { stillRunning: boolean };
  checkpoints: Partial<Record<string, number>>;
  chunks: number;
  indexFiles: number;
  /** The log position a restore of this backup keeps (its chaser.chk). */
  restoreEndsAt?: number;
  warnings: Problem[];
}

interface Findings {
  problems: Problem[];
  warnings: Problem[];
}

export async function verifyBackup(request: VerifyRequest): Promise<VerifyResult> {
  const source = resolve(request.source);
  const archive = await isArchive(source);
  const manifest = archive ? await readArchiveManifest(source) : checkComplete(await readManifest(source), source);
  const tally = new Tally(request.onProgress);
  let folder = source;
  let scratch: string | undefined;
  try {
    if (archive) {
      tally.phase('extract');
      scratch = join(dirname(source), `.svcdb-verify-${randomUUID()}`);
      await mkdir(scratch);
      await extractArchive(source, scratch);
      folder = scratch;
    }
    tally.phase('verify');
    const findings: Findings = { problems: [], warnings: [] };
    const checkpoints = await verifyCheckpoints(join(folder, BACKUP_DB_DIRECTORY), findings);
    const chunks = await verifyChunks(join(folder, BACKUP_DB_DIRECTORY), checkpoints, findings, tally);
    const indexFiles = await verifyIndex(join(folder, BACKUP_INDEX_DIRECTORY), checkpoints, findings, tally);
    if (findings.problems.length > 0) throw Errors.backupCorrupt.create(source, findings.problems);
    const chaser = checkpoints[CheckpointName.chaser];
    return {
      source, archive, nodeId: manifest.nodeId, kind: manifest.kind, startedAt: manifest.startedAt,
      ...(manifest.finishedAt ? { finishedAt: manifest.finishedAt } : {}),
      ...(manifest.generation === undefined ? {} : { generation: manifest.generation }),
      holds: held(manifest, chaser),
      ...(manifest.running ? { interrupted: { ...manifest.running, stillRunning: !archive && lockOwnerPid(source) !== undefined } } : {}),
      checkpoints, chunks, indexFiles, restoreEndsAt: chaser, warnings: findings.warnings,
    };
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * A run commits its new log by writing chaser.chk last (target.ts): a chaser.chk past the last
 * complete backup's (or, in a manifest that does not record it, past the one the run found) is a
 * log an interrupted run wrote.
 */
function held(manifest: BackupManifest, chaser: number | undefined): BackupHeld {
  const running = manifest.running;
  if (!running) return 'last-backup';
  const committed = manifest.checkpoints?.[CheckpointName.chaser] ?? running.fromChaser ?? Number.MAX_SAFE_INTEGER;
  return chaser !== undefined && chaser > committed ? 'interrupted-backup' : 'previous-backup';
}

const dbFile = (name: string) => `${BACKUP_DB_DIRECTORY}/${name}`;
const indexFile = (name: string) => `${BACKUP_INDEX_DIRECTORY}/${name}`;

function describe(error: unknown): string {
  return isSvcError(error) || error instanceof Error ? error.message : String(error);
}

async function verifyCheckpoints(db: string, findings: Findings): Promise<Partial<Record<string, number>>> {
  const values: Partial<Record<string, number>> = {};
  for (const name of Object.values(CheckpointName)) {
    try {
      const checkpoint = await readCheckpointAt(db, name);
      if (checkpoint !== undefined) values[name] = checkpoint.value;
      else if (name === CheckpointName.writer || name === CheckpointName.chaser) findings.problems.push({ file: dbFile(name), problem: 'missing' });
    } catch (error) {
      findings.problems.push({ file: dbFile(name), problem: describe(error) });
    }
  }
  const writer = values[CheckpointName.writer];
  const chaser = values[CheckpointName.chaser];
  const epoch = values[CheckpointName.epoch];
  if (writer !== undefined && chaser !== undefined && chaser > writer) {
    findings.problems.push({ file: dbFile(CheckpointName.chaser), problem: `chaser.chk ${chaser} is past writer.chk ${writer}` });
  }
  if (writer !== undefined && epoch !== undefined && epoch >= writer) {
    findings.problems.push({ file: dbFile(CheckpointName.epoch), problem: `epoch.chk ${epoch} is not below writer.chk ${writer}` });
  }
  return values;
}

/** The chunk files a node would open: the newest version of each chunk number. */
function newestVersions(names: string[]): string[] {
  const newest = new Map<number, string>();
  for (const name of sortChunkFiles(names)) newest.set(parseChunkFileName(name)!.chunkNumber, name);
  return [...newest.values()];
}

async function verifyChunks(db: string, checkpoints: Partial<Record<string, number>>, findings: Findings, tally: Tally): Promise<number> {
  const names = newestVersions(await readdir(db).catch(() => []));
  if (names.length === 0) {
    findings.problems.push({ file: BACKUP_DB_DIRECTORY, problem: 'no chunk files' });
    return 0;
  }
  let expectedNumber = 0;
  let chunkSize: number | undefined;
  for (const [position, name] of names.entries()) {
    tally.working(dbFile(name));
    const isLast = position === names.length - 1;
    try {
      const state = await readChunkState(join(db, name));
      if (!state) continue;
      chunkSize ??= state.header.chunkSize;
      if (state.header.chunkSize !== chunkSize) throw new Error(`chunk size ${state.header.chunkSize} differs from the ${chunkSize} of the chunks before`);
      if (state.header.startNumber !== expectedNumber) throw new Error(`starts at chunk ${state.header.startNumber}, expected ${expectedNumber}: a chunk file is missing`);
      expectedNumber = state.header.endNumber + 1;
      if (!state.completed && !isLast) throw new Error('not completed, but a later chunk follows');
      const problem = await verifyChunkContent(join(db, name), chunkSize, state.completed, checkpoints[CheckpointName.writer]);
      if (problem) throw new Error(problem);
    } catch (error) {
      findings.problems.push({ file: dbFile(name), problem: describe(error) });
    }
  }
  const writer = checkpoints[CheckpointName.writer];
  if (chunkSize !== undefined && writer !== undefined && writer > expectedNumber * chunkSize) {
    findings.problems.push({ file: dbFile(CheckpointName.writer), problem: `writer.chk ${writer} points past the last chunk` });
  }
  return names.length;
}

/** A completed chunk's hash, or the records of the ongoing one up to writer.chk. */
async function verifyChunkContent(path: string, chunkSize: number, completed: boolean, writer: number | undefined): Promise<string | undefined> {
  const chunk = await Chunk.open(path, chunkSize);
  try {
    if (completed) return (await chunk.verifyHash()) ? undefined : 'hash mismatch: the file differs from the MD5 in its footer';
    const end = Math.min(chunkSize, Math.max(0, (writer ?? 0) - chunk.header.startNumber * chunkSize));
    let local = 0;
    while (local < end) local += chunk.frameAt(local, end, true).framedLength;
    return undefined;
  } finally {
    await chunk.close();
  }
}

function collectingLogger(file: string, findings: Findings): Logger {
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (object, message) => findings.warnings.push({ file, problem: `${message ?? ''} ${JSON.stringify(object)}`.trim() }),
    error: (object, message) => findings.warnings.push({ file, problem: `${message ?? ''} ${JSON.stringify(object)}`.trim() }),
    child: () => logger,
  };
  return logger;
}

async function verifyIndex(index: string, checkpoints: Partial<Record<string, number>>, findings: Findings, tally: Tally): Promise<number> {
  if (!(await exists(index))) {
    findings.warnings.push({ file: BACKUP_INDEX_DIRECTORY, problem: 'no index: the restored node rebuilds it from the log' });
    return 0;
  }
  let map: IndexMap | undefined;
  try {
    map = await readIndexMap(index);
  } catch (error) {
    findings.problems.push({ file: indexFile(INDEXMAP_FILE), problem: describe(error) });
  }
  const listed = new Set(map?.files.map((file) => file.id) ?? []);
  for (const file of map?.files ?? []) {
    tally.working(indexFile(file.id));
    try {
      const opened = await IndexFile.open(index, file.id, { verify: true, logger: collectingLogger(indexFile(`${file.id}.bloomfilter`), findings) });
      opened.forceClose();
    } catch (error) {
      findings.problems.push({ file: indexFile(file.id), problem: describe(error) });
    }
  }
  const chaser = checkpoints[CheckpointName.chaser];
  if (map && chaser !== undefined && map.commitPosition > chaser) {
    findings.warnings.push({ file: indexFile(INDEXMAP_FILE), problem: `the index covers the log to ${map.commitPosition}, past chaser.chk ${chaser}: the restored node rebuilds the index` });
  }
  for (const name of await readdir(index)) {
    if (isIndexDataFile(name) && !listed.has(indexFileIdOf(name))) {
      findings.warnings.push({ file: indexFile(name), problem: 'not listed in indexmap; the node deletes it at start' });
    }
  }
  await verifyExistenceFilter(index, findings);
  await verifyScavengeState(index, findings);
  return listed.size;
}

async function verifyExistenceFilter(index: string, findings: Findings): Promise<void> {
  try {
    await readCheckpointAt(index, IndexPath.existenceCheckpoint);
  } catch (error) {
    findings.warnings.push({ file: indexFile(IndexPath.existenceCheckpoint), problem: `${describe(error)}; the node rebuilds the filter` });
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(join(index, IndexPath.existenceData));
  } catch {
    return;
  }
  try {
    const { corruptLines } = BloomFilter.load(bytes, indexFile(IndexPath.existenceData));
    if (corruptLines > 0) findings.warnings.push({ file: indexFile(IndexPath.existenceData), problem: `${corruptLines} corrupt lines; the node marks them as "may exist"` });
  } catch (error) {
    findings.warnings.push({ file: indexFile(IndexPath.existenceData), problem: `${describe(error)}; the node rebuilds the filter` });
  }
}

async function verifyScavengeState(index: string, findings: Findings): Promise<void> {
  const path = join(index, IndexPath.scavengeState);
  if (!(await exists(path))) return;
  try {
    const result = await quickCheckCopy(path);
    if (result !== 'ok') findings.problems.push({ file: indexFile(IndexPath.scavengeState), problem: `SQLite quick_check: ${result}` });
  } catch (error) {
    findings.problems.push({ file: indexFile(IndexPath.scavengeState), problem: describe(error) });
  }
}
