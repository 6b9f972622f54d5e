import { close } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Errors, isSvcError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { BLOOM_PAGE_BYTES, BloomFilter, BloomKey } from './bloom-filter.js';
import { fsyncDirectory, replaceFileDurably, replaceFileDurablySync } from '../disk/durable-file.js';
import { isTransientStorageError, storageError, writeFully } from '../disk/file-write.js';
import type { StreamHasher } from './types.js';
import { readInt64, writeInt64 } from '../log/int64.js';
import { hashPartsFunction, type HashParts, type HashPartsFunction } from './stream-hash.js';
import { PRIVATE_DIRECTORY_MODE, PRIVATE_FILE_MODE } from '../disk/file-modes.js';
import { EXISTENCE_CHECKPOINT_FILE, EXISTENCE_FILTER_FILE } from '../layout.js';
import { fileSystem } from '../disk/file-system.js';

const fsyncAsync = (fd: number) => new Promise<void>((resolve, reject) => fileSystem.fsync(fd, (error) => (error ? reject(error) : resolve())));
const ftruncateAsync = (fd: number, length: number) => new Promise<void>((resolve, reject) => fileSystem.ftruncate(fd, length, (error) => (error ? reject(error) : resolve())));
const closeAsync = promisify(close);

/** Pages written per write call, so a large persist yields to the event loop between writes. */
const PAGES_PER_WRITE = 256;
/** More corrupt lines than this fraction and the filter is rebuilt instead of patched. */
const CORRUPT_LINES_FRACTION_MAX = 0.01;
const PERSIST_DELAY_MS_DEFAULT = 30_000;

export interface StreamExistenceFilterOptions {
  /** `<index>/stream-existence`; created if absent. */
  directory: string;
  /** Rounded down to whole 4 KiB pages; about one byte per expected stream gives 2% false positives. */
  sizeBytes: number;
  hasher: StreamHasher;
  logger: Logger;
  /** How long after a commit the filter is persisted; commits in between ride along. */
  persistDelayMs?: number;
}

/**
 * A persisted bloom filter of every stream name ever written: mightExist() false means the
 * stream certainly never existed, so an append to a new stream needs no index lookup.
 *
 * `.dat` is the filter (bloom-filter.ts layout); `.chk` is an 8-byte little-endian log position:
 * every stream of a record below it is in the `.dat` (-1 when nothing is). Persisting writes the
 * changed pages of `.dat`, fsyncs it, then durably replaces `.chk`, so `.chk` never claims more
 * than `.dat` holds. A torn page shows up as lines with bad checksums, which are saturated at load.
 * The engine re-adds the streams of the log from the checkpoint at start.
 */
export class StreamExistenceFilter {
  private readonly directory: string;
  private readonly logger: Logger;
  private readonly filter: BloomFilter;
  private readonly hashParts: HashPartsFunction;
  private readonly persistDelayMs: number;
  private readonly hash: HashParts = { high: 0, low: 0 };
  private readonly key = new BloomKey();
  private fd: number;
  private committed: number;
  private persisted: number;
  private timer: NodeJS.Timeout | undefined;
  private persisting: Promise<void> = Promise.resolve();
  /** Bumped by moveCheckpointBack, so a persist in flight does not write back a larger checkpoint. */
  private moveBackGeneration = 0;
  private movedBackTo = -1;
  private failure: Error | undefined;
  private state: 'open' | 'closed' = 'open';

  private constructor(options: StreamExistenceFilterOptions, filter: BloomFilter, fd: number, checkpoint: number) {
    this.directory = options.directory;
    this.logger = options.logger;
    this.filter = filter;
    this.fd = fd;
    this.hashParts = hashPartsFunction(options.hasher);
    this.persistDelayMs = options.persistDelayMs ?? PERSIST_DELAY_MS_DEFAULT;
    this.committed = checkpoint;
    this.persisted = checkpoint;
  }

  static async open(options: StreamExistenceFilterOptions): Promise<StreamExistenceFilter> {
    const sizeBytes = Math.floor(options.sizeBytes / BLOOM_PAGE_BYTES) * BLOOM_PAGE_BYTES;
    if (!Number.isSafeInteger(options.sizeBytes) || sizeBytes < BLOOM_PAGE_BYTES) {
      throw new TypeError(`existence filter size ${options.sizeBytes} is below ${BLOOM_PAGE_BYTES} bytes`);
    }
    await mkdir(options.directory, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
    const loaded = await loadExisting(options, sizeBytes);
    let filter: BloomFilter;
    let checkpoint: number;
    if ('filter' in loaded) {
      ({ filter, checkpoint } = loaded);
    } else {
      const log = loaded.fresh ? options.logger.info.bind(options.logger) : options.logger.warn.bind(options.logger);
      log({ directory: options.directory, reason: loaded.rebuild }, 'rebuilding the stream existence filter from the log');
      filter = await createEmpty(options.directory, sizeBytes, loaded.rebuildCount);
      checkpoint = -1;
    }
    const fd = fileSystem.openSync(join(options.directory, EXISTENCE_FILTER_FILE), 'r+');
    options.logger.info({ sizeBytes, checkpoint }, 'stream existence filter opened');
    return new StreamExistenceFilter(options, filter, fd, checkpoint);
  }

  /** The log position the filter covers: every stream of a record below it was added. */
  get checkpoint(): number {
    return this.committed;
  }

  /** The checkpoint as it is on disk. */
  get persistedCheckpoint(): number {
    return this.persisted;
  }

  get corruptionRebuildCount(): number {
    return this.filter.corruptionRebuildCount;
  }

  add(streamName: string): void {
    this.checkUsable();
    this.hashParts(streamName, this.hash);
    this.filter.add(this.key.set(this.hash.high, this.hash.low));
  }

  /** False: the stream certainly never existed. True: it may have (about 2% false positives). */
  mightExist(streamName: string): boolean {
    this.checkUsable();
    this.hashParts(streamName, this.hash);
    return this.filter.mightContain(this.key.set(this.hash.high, this.hash.low));
  }

  /** Every stream of a record below `endPosition` was added; persisted a little later. */
  commit(endPosition: number): void {
    this.checkUsable();
    if (endPosition > this.committed) this.committed = endPosition;
    if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush().catch(() => undefined);
      }, this.persistDelayMs);
      this.timer.unref();
    }
  }

  /** Persists what was committed so far; rejects (and keeps failing) if the disk fails. */
  flush(): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.state === 'closed') return Promise.resolve();
    this.persisting = this.persisting.then(() => this.persist()).catch((error: unknown) => {
      if (!isTransientStorageError(error)) throw this.fail(error);
      // A full disk: the pages stay dirty and the checkpoint where it was; the next commit (or
      // the next start, which re-adds from the checkpoint) persists them.
      this.logger.warn({ code: (error as { code?: string }).code }, 'stream existence filter not persisted: the disk is full; will retry');
    });
    return this.persisting;
  }

  /**
   * After the log was cut back to `position`: the checkpoint follows, durably and at once (before
   * any new record is added). Bits of the cut streams stay: false positives are harmless.
   */
  moveCheckpointBack(position: number): void {
    this.checkUsable();
    const target = Math.max(-1, position);
    if (target >= this.committed && target >= this.persisted) return;
    this.committed = Math.min(this.committed, target);
    this.moveBackGeneration++;
    this.movedBackTo = this.committed;
    replaceFileDurablySync(this.checkpointPath, encodeCheckpoint(this.committed));
    this.persisted = this.committed;
    this.logger.info({ checkpoint: this.committed }, 'stream existence filter checkpoint moved back');
  }

  /** Persists and closes. */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    clearTimeout(this.timer);
    this.timer = undefined;
    try {
      if (this.failure === undefined) await this.flush();
    } finally {
      this.state = 'closed';
      await closeAsync(this.fd).catch(() => undefined);
    }
  }

  private get checkpointPath(): string {
    return join(this.directory, EXISTENCE_CHECKPOINT_FILE);
  }

  private get dataPath(): string {
    return join(this.directory, EXISTENCE_FILTER_FILE);
  }

  private checkUsable(): void {
    if (this.failure !== undefined) throw this.failure;
    if (this.state !== 'open') throw Errors.storageClosed.create('the stream existence filter is closed');
  }

  private fail(error: unknown): Error {
    if (this.failure === undefined) {
      this.failure = isSvcError(error) ? error : Errors.storageIo.create(this.dataPath, 'persist', String(error));
      this.logger.error({ err: this.failure, code: (this.failure as { code?: string }).code }, 'stream existence filter could not be persisted');
    }
    return this.failure;
  }

  private async persist(): Promise<void> {
    // Every add for records below this position happened before it was committed, so the pages
    // taken next hold them all (and maybe more, which is harmless).
    const checkpoint = this.committed;
    const generation = this.moveBackGeneration;
    const runs = this.filter.takeDirtyRuns(PAGES_PER_WRITE);
    if (runs.length === 0 && checkpoint === this.persisted) return;
    try {
      for (const run of runs) {
        const { offset, bytes } = this.filter.copyPages(run);
        await this.writeAt(bytes, offset);
      }
    } catch (error) {
      this.filter.restoreDirtyRuns(runs);
      throw error;
    }
    try {
      await fsyncAsync(this.fd);
    } catch (error) {
      throw Errors.storageIo.create(this.dataPath, 'fsync', String(error));
    }
    // A move back since the start persisted itself; this older, larger value must not replace it.
    if (generation !== this.moveBackGeneration) return;
    await replaceFileDurably(this.checkpointPath, encodeCheckpoint(checkpoint));
    if (generation !== this.moveBackGeneration) {
      // It happened while our replace was in flight, which may have landed last.
      replaceFileDurablySync(this.checkpointPath, encodeCheckpoint(this.movedBackTo));
      return;
    }
    this.persisted = checkpoint;
  }

  private async writeAt(bytes: Buffer, position: number): Promise<void> {
    await writeFully(this.fd, bytes, 0, bytes.length, position, this.dataPath);
  }
}

type Loaded = { filter: BloomFilter; checkpoint: number } | { rebuild: string; rebuildCount: number; fresh?: boolean };

/** The filter on disk, or why it has to be rebuilt. */
async function loadExisting(options: StreamExistenceFilterOptions, sizeBytes: number): Promise<Loaded> {
  const dataPath = join(options.directory, EXISTENCE_FILTER_FILE);
  const checkpoint = await readCheckpoint(join(options.directory, EXISTENCE_CHECKPOINT_FILE));
  let bytes: Buffer;
  try {
    bytes = await readFile(dataPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { rebuild: 'no filter file yet', rebuildCount: 0, fresh: true };
    throw Errors.storageIo.create(dataPath, 'read', String(error));
  }
  if (bytes.length !== sizeBytes) {
    return { rebuild: `size changed from ${bytes.length} to ${sizeBytes} bytes`, rebuildCount: 0 };
  }
  if (checkpoint === undefined) return { rebuild: 'checkpoint file missing or malformed', rebuildCount: 0 };
  let loaded;
  try {
    loaded = BloomFilter.load(bytes, dataPath, { trackDirty: true });
  } catch (error) {
    return { rebuild: `corrupt filter: ${String(error)}`, rebuildCount: 1 };
  }
  const { filter, corruptLines } = loaded;
  const lines = bytes.length / 64 - 1;
  if (corruptLines > lines * CORRUPT_LINES_FRACTION_MAX) {
    return { rebuild: `${corruptLines} of ${lines} lines are corrupt`, rebuildCount: filter.corruptionRebuildCount + 1 };
  }
  if (corruptLines > 0) {
    options.logger.warn({ file: dataPath, corruptLines }, 'corrupt existence filter lines saturated (they now match every stream)');
  }
  return { filter, checkpoint };
}

async function readCheckpoint(path: string): Promise<number | undefined> {
  try {
    const bytes = await readFile(path);
    return bytes.length === 8 ? readInt64(bytes, 0) : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw Errors.storageIo.create(path, 'read', String(error));
  }
}

/**
 * A new, empty filter on disk: the checkpoint goes to -1 first (so a crash midway never pairs an
 * empty filter with an old checkpoint), then the file is the header page plus sparse zeros.
 */
async function createEmpty(directory: string, sizeBytes: number, rebuildCount: number): Promise<BloomFilter> {
  const dataPath = join(directory, EXISTENCE_FILTER_FILE);
  await replaceFileDurably(join(directory, EXISTENCE_CHECKPOINT_FILE), encodeCheckpoint(-1));
  await rm(dataPath, { force: true });
  const filter = BloomFilter.create(sizeBytes, { trackDirty: true, corruptionRebuildCount: rebuildCount });
  const header = filter.copyPages({ firstPage: 0, pageCount: 1 });
  filter.takeDirtyRuns();
  const fd = fileSystem.openSync(dataPath, 'w', PRIVATE_FILE_MODE);
  try {
    await writeFully(fd, header.bytes, 0, header.bytes.length, 0, dataPath);
    await ftruncateAsync(fd, sizeBytes);
    await fsyncAsync(fd);
  } catch (error) {
    throw storageError(dataPath, 'create', error);
  } finally {
    await closeAsync(fd);
  }
  await fsyncDirectory(directory);
  return filter;
}

function encodeCheckpoint(position: number): Buffer {
  const bytes = Buffer.alloc(8);
  writeInt64(bytes, 0, position);
  return bytes;
}

/** What the engine uses of an existence filter; `disabledExistenceFilter` stands in when the size is 0. */
export interface ExistenceFilter {
  readonly checkpoint: number;
  add(streamName: string): void;
  mightExist(streamName: string): boolean;
  commit(endPosition: number): void;
  moveCheckpointBack(position: number): void;
  close(): Promise<void>;
}

/** No filter: every stream might exist, so lookups always go to the index. */
export const disabledExistenceFilter: ExistenceFilter = Object.freeze({
  checkpoint: Infinity,
  add: () => undefined,
  mightExist: () => true,
  commit: () => undefined,
  moveCheckpointBack: () => undefined,
  close: async () => undefined,
});
