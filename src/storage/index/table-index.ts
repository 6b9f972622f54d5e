import { mkdir } from 'node:fs/promises';
import { Errors, isSvcError } from '../../common/errors.js';
import { isTransientStorageError } from '../disk/file-write.js';
import type { Logger } from '../../common/logger.js';
import { BloomKey } from './bloom-filter.js';
import { hashPartsFunction, type HashParts, type HashPartsFunction } from './stream-hash.js';
import { flushMemTable } from './flush.js';
import { IndexFile } from './index-file.js';
import { readIndexMap, removeUnreferencedFiles, writeIndexMap, type IndexMap } from './indexmap.js';
import { MemTable } from './memtable.js';
import { mergeIndexFiles } from './merge.js';
import { filterIndexFile, type KeepEntry } from './filter.js';
import { ENTRY_BYTES } from './index-file-format.js';
import type { IndexEntry, TableIndexOptions } from './types.js';
import { PRIVATE_DIRECTORY_MODE } from '../disk/file-modes.js';

/** An index file as the map lists it. */
interface FileSlot {
  readonly file: IndexFile;
  readonly level: number;
  /** The index commit position when the file was made. */
  readonly commitPosition: number;
}

/** How long the index waits before writing again after a full disk refused a write. */
const BACKGROUND_RETRY_MS = 1000;

/** mergeAll() and clear() run on the background loop, between flushes and merges. */
interface Request {
  readonly run: () => Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

export interface TableIndexFileStats {
  name: string;
  level: number;
  entries: number;
  commitPosition: number;
}

/** What a scavenge did to one index file. */
export interface IndexFileScavenge {
  level: number;
  /** The file's place in the map's list when it was scavenged. */
  index: number;
  entriesKept: number;
  entriesDeleted: number;
  /** Bytes of entries removed. */
  spaceSaved: number;
  /** Whether the file was rewritten (it lost entries). */
  wasScavenged: boolean;
  timeTakenMs: number;
}

export interface TableIndexStats {
  commitPosition: number;
  /** Entries in the active memory table and in frozen ones not yet written out. */
  memTableEntries: number;
  frozenMemTables: number;
  files: TableIndexFileStats[];
}

/**
 * The stream index: (stream, event number) → log positions, as an LSM tree over 64-bit stream
 * hashes. add() goes to the active memory table; when commit() finds it full it is frozen and a
 * new one takes over at once, and a background loop writes frozen tables out as level-0 files,
 * rewrites the indexmap, and merges two files of one level into one of the next. Lookups search
 * the memory tables (exact: keyed by name) and the files (by hash: the caller confirms the stream
 * name against the log).
 *
 * Nothing on the write path waits for the disk. A background failure is kept and thrown by every
 * later call, and told to the listener given to onFailure (the engine, which stops at once instead
 * of running with an index that no longer persists).
 */
export class TableIndex {
  private readonly directory: string;
  private readonly logger: Logger;
  private readonly memTableEntriesMax: number;
  private readonly maxAutoMergeLevel: number;
  private readonly hashParts: HashPartsFunction;
  private state: 'open' | 'closing' | 'closed' = 'open';
  private memTable: MemTable;
  /** Frozen memory tables waiting to be written, oldest first. */
  private frozen: MemTable[] = [];
  /** Oldest first. Replaced (never mutated) so an iteration in progress keeps its snapshot. */
  private files: readonly FileSlot[];
  private persistedPosition: number;
  private requests: Request[] = [];
  private working = false;
  private loop: Promise<void> = Promise.resolve();
  private failure: Error | undefined;
  private failureListener: ((error: Error) => void) | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  /** Files retired but maybe not yet deleted (a lookup may still hold one). */
  private retired: IndexFile[] = [];
  private readonly lookupHash: HashParts = { high: 0, low: 0 };
  private readonly lookupKey = new BloomKey();

  private constructor(options: TableIndexOptions, map: IndexMap, files: FileSlot[]) {
    this.directory = options.directory;
    this.logger = options.logger;
    this.memTableEntriesMax = options.memTableEntriesMax;
    this.maxAutoMergeLevel = options.maxAutoMergeLevel ?? Infinity;
    this.hashParts = hashPartsFunction(options.hasher);
    this.files = files;
    this.persistedPosition = map.commitPosition;
    this.memTable = new MemTable(this.hashParts);
    this.memTable.endPosition = map.commitPosition;
  }

  /** Opens the index in `options.directory`, creating the directory and an empty map if absent. */
  static async open(options: TableIndexOptions): Promise<TableIndex> {
    checkOptions(options);
    const { directory, logger } = options;
    await mkdir(directory, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
    let map = await readIndexMap(directory);
    if (map === undefined) {
      map = { commitPosition: 0, maxAutoMergeLevel: options.maxAutoMergeLevel ?? Infinity, files: [] };
      await writeIndexMap(directory, map);
    }
    await removeUnreferencedFiles(directory, map, logger);
    const files: FileSlot[] = [];
    try {
      for (const listed of map.files) {
        const file = await IndexFile.open(directory, listed.id, { verify: !(options.skipIndexVerify ?? false), logger });
        files.push({ file, level: listed.level, commitPosition: listed.commitPosition });
      }
    } catch (error) {
      for (const slot of files) slot.file.forceClose();
      throw error;
    }
    logger.info({ directory, commitPosition: map.commitPosition, files: files.length }, 'index opened');
    const index = new TableIndex(options, map, files);
    index.startBackgroundWork();
    return index;
  }

  /** Every log record below this position is in the persisted index files. */
  get commitPosition(): number {
    return this.persistedPosition;
  }

  add(streamName: string, eventNumber: number, logPosition: number): void {
    this.checkUsable();
    this.memTable.add(streamName, eventNumber, logPosition);
  }

  /**
   * Every record below `endPosition` has been added. A full memory table is frozen here (so the
   * files' commit position always falls on a commit boundary) and written out in the background.
   */
  commit(endPosition: number): void {
    this.checkUsable();
    const table = this.memTable;
    table.endPosition = endPosition;
    if (table.entryCount < this.memTableEntriesMax) return;
    table.freeze();
    this.frozen.push(table);
    this.memTable = new MemTable(this.hashParts);
    this.memTable.endPosition = endPosition;
    this.startBackgroundWork();
  }

  /**
   * The entries of the stream numbered from..to (inclusive), ascending by (eventNumber,
   * logPosition). Entries from files may belong to another stream with the same hash
   * (exact = false); the caller checks them against the log.
   */
  range(streamName: string, fromEventNumber: number, toEventNumber: number): IndexEntry[] {
    this.checkUsable();
    const out: IndexEntry[] = [];
    if (fromEventNumber > toEventNumber) return out;
    let sources = 0;
    let known: MemTable | undefined;
    let knownId = -1;
    for (const table of this.memTablesNewestFirst()) {
      const id = table.find(streamName);
      if (id < 0) continue;
      known = table;
      knownId = id;
      const before = out.length;
      table.appendRange(id, fromEventNumber, toEventNumber, out);
      if (out.length > before) sources++;
    }
    const files = this.files;
    if (files.length > 0) {
      const { high, low } = this.hashOf(streamName, known, knownId);
      const key = this.lookupKey.set(high, low);
      for (let index = files.length - 1; index >= 0; index--) {
        const file = files[index].file;
        if (!file.mightContain(high, low, key)) continue;
        const before = out.length;
        file.appendRange(high, low, fromEventNumber, toEventNumber, out);
        if (out.length > before) sources++;
      }
    }
    if (sources > 1) out.sort(compareEntries);
    return out;
  }

  /**
   * The stream's entries from the highest event number down (below `beforeEventNumber` when
   * given, exclusive), lazily: the caller stops at the first entry it confirms against the log.
   * Iterate with for…of (or call return()) so that the files it reads are released.
   */
  *descending(streamName: string, beforeEventNumber?: number): Generator<IndexEntry, void, undefined> {
    this.checkUsable();
    const before = beforeEventNumber ?? Infinity;
    const sources: Array<Iterator<IndexEntry, void, undefined>> = [];
    let known: MemTable | undefined;
    let knownId = -1;
    for (const table of this.memTablesNewestFirst()) {
      const id = table.find(streamName);
      if (id < 0) continue;
      known = table;
      knownId = id;
      sources.push(table.descending(id, before));
    }
    const acquired: IndexFile[] = [];
    try {
      if (this.files.length > 0) {
        const { high, low } = this.hashOf(streamName, known, knownId);
        // The shared key is only used here, before the first yield.
        const key = this.lookupKey.set(high, low);
        for (const slot of this.files) {
          if (!slot.file.mightContain(high, low, key)) continue;
          slot.file.acquire();
          acquired.push(slot.file);
          sources.push(slot.file.descending(high, low, before));
        }
      }
      yield* mergeDescending(sources);
    } finally {
      for (const source of sources) source.return?.();
      for (const file of acquired) file.release();
    }
  }

  /** Merges every index file into one (the admin operation), after the flushes already queued. */
  async mergeAll(): Promise<void> {
    await this.request(async () => {
      if (this.files.length < 2) return;
      const level = Math.max(...this.files.map((slot) => slot.level)) + 1;
      await this.mergeFiles(this.files, level);
    });
  }

  /**
   * Rewrites every index file without the entries `keep` refuses, one file per background job so
   * that flushes go on in between; the map is saved after each file. A file made by a merge
   * meanwhile is visited too. Stops between files once `shouldStop` says so; false then.
   */
  async scavenge(keep: KeepEntry, onFile: (report: IndexFileScavenge) => void, shouldStop: () => boolean): Promise<boolean> {
    const visited = new Set<string>();
    for (;;) {
      if (shouldStop()) return false;
      let report: IndexFileScavenge | undefined;
      await this.request(async () => {
        report = await this.scavengeNextFile(keep, visited);
      });
      if (report === undefined) return true;
      onFile(report);
    }
  }

  private async scavengeNextFile(keep: KeepEntry, visited: Set<string>): Promise<IndexFileScavenge | undefined> {
    const index = this.files.findIndex((slot) => !visited.has(slot.file.id));
    if (index < 0) return undefined;
    const slot = this.files[index];
    visited.add(slot.file.id);
    const started = performance.now();
    const filtered = await filterIndexFile(slot.file, keep, this.directory, this.logger);
    const { entriesKept, entriesDeleted } = filtered;
    if (entriesDeleted > 0) {
      const files = [...this.files];
      if (filtered.file === undefined) {
        files.splice(index, 1);
      } else {
        visited.add(filtered.file.id);
        files[index] = { ...slot, file: filtered.file };
      }
      await this.persistMap(files, this.persistedPosition);
      this.files = files;
      this.retire(slot.file);
      this.logger.debug({ file: slot.file.id, replacement: filtered.file?.id, entriesDeleted }, 'index file scavenged');
    }
    return {
      level: slot.level, index, entriesKept, entriesDeleted, spaceSaved: entriesDeleted * ENTRY_BYTES,
      wasScavenged: entriesDeleted > 0, timeTakenMs: performance.now() - started,
    };
  }

  /**
   * Drops every file and memory table and writes an empty map: the engine calls this when the log
   * was cut below commitPosition, then re-adds everything from the log.
   */
  async clear(): Promise<void> {
    this.checkUsable();
    // Dropped at once, so nothing of the cut log is found even before the files are gone; a
    // flush already in progress notices and discards its file.
    this.frozen = [];
    this.memTable = new MemTable(this.hashParts);
    await this.request(async () => {
      const old = this.files;
      await writeIndexMap(this.directory, { commitPosition: 0, maxAutoMergeLevel: this.maxAutoMergeLevel, files: [] });
      this.files = [];
      this.persistedPosition = 0;
      for (const slot of old) this.retire(slot.file);
      this.logger.info({ files: old.length }, 'index cleared');
    });
  }

  /** Tells `listener` of a background failure, when it happens: the index is unusable from then on. */
  onFailure(listener: (error: Error) => void): void {
    this.failureListener = listener;
  }

  /** Resolves when nothing is queued or running; rejects with the background failure, if any. */
  async waitForBackgroundWork(): Promise<void> {
    while (this.working) await this.loop;
    await Promise.all(this.retired.flatMap((file) => file.deletion ?? []));
    this.retired = this.retired.filter((file) => file.deletion === undefined);
    if (this.failure !== undefined) throw this.failure;
  }

  /**
   * Lets the background job in progress finish, then closes every file. Frozen memory tables not
   * yet written are dropped, like the active one: the log is the source of truth, and the engine
   * re-adds from commitPosition at the next start.
   */
  async close(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'closing';
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    while (this.working) await this.loop;
    for (const request of this.requests.splice(0)) request.reject(Errors.storageClosed.create('the index is closing'));
    for (const slot of this.files) slot.file.forceClose();
    this.files = [];
    this.frozen = [];
    this.state = 'closed';
  }

  stats(): TableIndexStats {
    return {
      commitPosition: this.persistedPosition,
      memTableEntries: this.memTable.entryCount + this.frozen.reduce((sum, table) => sum + table.entryCount, 0),
      frozenMemTables: this.frozen.length,
      files: this.files.map((slot) => ({
        name: slot.file.id, level: slot.level, entries: slot.file.entryCount, commitPosition: slot.commitPosition,
      })),
    };
  }

  private checkUsable(): void {
    if (this.failure !== undefined) throw this.failure;
    if (this.state !== 'open') throw Errors.storageClosed.create('the index is closed');
  }

  private *memTablesNewestFirst(): Generator<MemTable> {
    yield this.memTable;
    for (let index = this.frozen.length - 1; index >= 0; index--) yield this.frozen[index];
  }

  /** The hash of a name; a memory table that holds the stream already knows it. */
  private hashOf(streamName: string, known: MemTable | undefined, knownId: number): HashParts {
    if (known !== undefined) {
      this.lookupHash.high = known.hashHigh(knownId);
      this.lookupHash.low = known.hashLow(knownId);
    } else {
      this.hashParts(streamName, this.lookupHash);
    }
    return this.lookupHash;
  }

  private request(run: () => Promise<void>): Promise<void> {
    this.checkUsable();
    return new Promise<void>((resolve, reject) => {
      this.requests.push({ run, resolve, reject });
      this.startBackgroundWork();
    });
  }

  private startBackgroundWork(): void {
    if (this.working || this.failure !== undefined || this.retryTimer !== undefined || this.state !== 'open') return;
    this.working = true;
    this.loop = this.runBackgroundWork();
  }

  /**
   * One job at a time: flushes first (memory is what grows), then explicit requests, then
   * automatic merges. `working` is cleared in the same synchronous step that finds nothing to
   * do, so a commit that freezes a table right after always starts a new loop.
   */
  private async runBackgroundWork(): Promise<void> {
    while (this.state === 'open') {
      const job = this.nextJob();
      if (job === undefined) break;
      try {
        await job.run();
        job.request?.resolve();
      } catch (error) {
        if (isTransientStorageError(error)) {
          this.deferBackgroundWork(error, job.request);
          return;
        }
        const failure = this.fail(error);
        job.request?.reject(failure);
        break;
      }
    }
    this.working = false;
  }

  /**
   * A full disk (or no descriptor left) does not stop the index: the memory tables keep every
   * entry and the work is tried again a little later. An explicit request (a merge) is refused.
   */
  private deferBackgroundWork(error: unknown, request: Request | undefined): void {
    request?.reject(error as Error);
    this.logger.warn({ code: (error as { code?: string }).code, retryMs: BACKGROUND_RETRY_MS }, 'index write deferred: the disk is full or descriptors ran out');
    this.working = false;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.startBackgroundWork();
    }, BACKGROUND_RETRY_MS);
    this.retryTimer.unref();
  }

  private nextJob(): { run: () => Promise<void>; request?: Request } | undefined {
    if (this.frozen.length > 0) return { run: () => this.flushOldest() };
    const request = this.requests.shift();
    if (request !== undefined) return { run: request.run, request };
    if (this.nextAutoMerge() !== undefined) return { run: () => this.runAutoMerge() };
    return undefined;
  }

  private fail(error: unknown): Error {
    const failure = isSvcError(error) ? error : Errors.storageIo.create(this.directory, 'index background work', String(error));
    this.failure = failure;
    this.logger.error({ err: failure, code: failure.code }, 'index background work failed; the index stops');
    for (const request of this.requests.splice(0)) request.reject(failure);
    this.failureListener?.(failure);
    return failure;
  }

  private async flushOldest(): Promise<void> {
    const table = this.frozen[0];
    const file = await flushMemTable(table, this.directory, this.logger);
    if (this.frozen[0] !== table) {
      // clear() dropped the table while it was being written.
      this.retire(file);
      return;
    }
    const files = [...this.files, { file, level: 0, commitPosition: table.endPosition }];
    await this.persistMap(files, table.endPosition);
    this.files = files;
    this.frozen.shift();
    this.persistedPosition = table.endPosition;
    this.logger.debug({ file: file.id, entries: file.entryCount, commitPosition: table.endPosition }, 'memory table written');
  }

  /** The lowest level below the cap that holds two files, or undefined. */
  private nextAutoMerge(): number | undefined {
    const counts = new Map<number, number>();
    let lowest: number | undefined;
    for (const slot of this.files) {
      if (slot.level >= this.maxAutoMergeLevel) continue;
      const count = (counts.get(slot.level) ?? 0) + 1;
      counts.set(slot.level, count);
      if (count >= 2 && (lowest === undefined || slot.level < lowest)) lowest = slot.level;
    }
    return lowest;
  }

  private async runAutoMerge(): Promise<void> {
    const level = this.nextAutoMerge()!;
    const inputs = this.files.filter((slot) => slot.level === level).slice(0, 2);
    await this.mergeFiles(inputs, level + 1);
  }

  /** Merges `inputs` into one file at `level`; the inputs are deleted once the new map is durable. */
  private async mergeFiles(inputs: readonly FileSlot[], level: number): Promise<void> {
    const file = await mergeIndexFiles(inputs.map((slot) => slot.file), this.directory, level, this.logger);
    const merged: FileSlot = { file, level, commitPosition: Math.max(...inputs.map((slot) => slot.commitPosition)) };
    // The merged file takes the place of its oldest input, keeping the list roughly oldest first.
    const files: FileSlot[] = [];
    for (const slot of this.files) {
      if (slot === inputs[0]) files.push(merged);
      else if (!inputs.includes(slot)) files.push(slot);
    }
    await this.persistMap(files, this.persistedPosition);
    this.files = files;
    for (const slot of inputs) this.retire(slot.file);
    this.logger.debug({ file: file.id, level, entries: file.entryCount, inputs: inputs.map((slot) => slot.file.id) }, 'index files merged');
  }

  /** Deleted from disk once no lookup holds it; waitForBackgroundWork() awaits the deletion. */
  private retire(file: IndexFile): void {
    file.retire();
    this.retired.push(file);
  }

  private async persistMap(files: readonly FileSlot[], commitPosition: number): Promise<void> {
    await writeIndexMap(this.directory, {
      commitPosition,
      maxAutoMergeLevel: this.maxAutoMergeLevel,
      files: files.map((slot) => ({ level: slot.level, commitPosition: slot.commitPosition, id: slot.file.id })),
    });
  }
}

function checkOptions(options: TableIndexOptions): void {
  if (!Number.isSafeInteger(options.memTableEntriesMax) || options.memTableEntriesMax < 1) {
    throw new TypeError(`memTableEntriesMax must be a positive integer, not ${options.memTableEntriesMax}`);
  }
  const level = options.maxAutoMergeLevel;
  if (level !== undefined && level !== Infinity && (!Number.isSafeInteger(level) || level < 0)) {
    throw new TypeError(`maxAutoMergeLevel must be a non-negative integer, not ${level}`);
  }
}

function compareEntries(a: IndexEntry, b: IndexEntry): number {
  return a.eventNumber - b.eventNumber || a.logPosition - b.logPosition;
}

/** Merges descending sources into one descending sequence by (eventNumber, logPosition). */
function* mergeDescending(sources: Array<Iterator<IndexEntry, void, undefined>>): Generator<IndexEntry, void, undefined> {
  if (sources.length === 1) {
    for (let next = sources[0].next(); !next.done; next = sources[0].next()) yield next.value;
    return;
  }
  const heads: Array<IndexEntry | undefined> = sources.map((source) => nextOf(source));
  for (;;) {
    let best = -1;
    for (let index = 0; index < heads.length; index++) {
      const head = heads[index];
      if (head === undefined) continue;
      const current = best < 0 ? undefined : heads[best]!;
      if (current === undefined || compareEntries(head, current) > 0) best = index;
    }
    if (best < 0) return;
    const entry = heads[best]!;
    heads[best] = nextOf(sources[best]);
    yield entry;
  }
}

function nextOf(source: Iterator<IndexEntry, void, undefined>): IndexEntry | undefined {
  const next = source.next();
  return next.done ? undefined : next.value;
}
