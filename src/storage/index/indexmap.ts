import { readFile, readdir } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Errors } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { replaceFileDurably } from '../disk/durable-file.js';
import { INDEXMAP_FILE, indexFileIdOf, isIndexFileName, isTempFile } from '../layout.js';
import { fileSystem } from '../disk/file-system.js';

/**
 * `indexmap`, the manifest of the index: which files make up the index and which part of the log
 * they cover. Text, one item per line:
 *
 *   <md5 of everything after this line, 32 uppercase hex digits>
 *   <format version>
 *   <commit position: every log record below it is in the listed files>
 *   <max auto-merge level>
 *   <level>,<commit position when the file was made>,<file name>     (one line per file)
 *
 * It is only ever replaced whole and durably (temp file, fsync, rename, fsync directory), so the
 * files it lists are always complete: a file is listed only after it was made durable, and an
 * old file is deleted only after a map without it is durable.
 */

const FORMAT_VERSION = 1;
/** Written for "no limit" so that the line stays an integer. */
const UNLIMITED_LEVEL = 2_147_483_647;

export interface IndexMapFile {
  level: number;
  commitPosition: number;
  id: string;
}

export interface IndexMap {
  commitPosition: number;
  /** Infinity for no limit. */
  maxAutoMergeLevel: number;
  files: IndexMapFile[];
}

export function serializeIndexMap(map: IndexMap): string {
  const level = Number.isFinite(map.maxAutoMergeLevel) ? map.maxAutoMergeLevel : UNLIMITED_LEVEL;
  const body = [
    String(FORMAT_VERSION),
    String(map.commitPosition),
    String(level),
    ...map.files.map((file) => `${file.level},${file.commitPosition},${file.id}`),
  ].join('\n') + '\n';
  return `${md5Hex(body)}\n${body}`;
}

export function parseIndexMap(text: string, path: string): IndexMap {
  const corrupt = (what: string) => Errors.indexCorrupt.create(path, what);
  const newline = text.indexOf('\n');
  if (newline < 0) throw corrupt('no checksum line');
  const body = text.slice(newline + 1);
  if (text.slice(0, newline) !== md5Hex(body)) throw corrupt('checksum mismatch');
  const lines = body.split('\n');
  if (lines.pop() !== '') throw corrupt('last line is not terminated');
  if (lines.length < 3) throw corrupt('header lines missing');
  const version = parseCount(lines[0]);
  if (version !== FORMAT_VERSION) throw corrupt(`unknown format version ${lines[0]}`);
  const commitPosition = parseCount(lines[1]);
  if (commitPosition === undefined) throw corrupt(`bad commit position ${lines[1]}`);
  const level = parseCount(lines[2]);
  if (level === undefined) throw corrupt(`bad max auto-merge level ${lines[2]}`);
  const files = lines.slice(3).map((line, index) => {
    const [fileLevel, filePosition, id, extra] = line.split(',');
    const parsedLevel = parseCount(fileLevel ?? '');
    const parsedPosition = parseCount(filePosition ?? '');
    if (parsedLevel === undefined || parsedPosition === undefined || id === undefined || !isIndexFileName(id) || extra !== undefined) {
      throw corrupt(`bad file line ${index + 1}: ${line}`);
    }
    return { level: parsedLevel, commitPosition: parsedPosition, id };
  });
  if (new Set(files.map((file) => file.id)).size !== files.length) throw corrupt('a file is listed twice');
  return { commitPosition, maxAutoMergeLevel: level === UNLIMITED_LEVEL ? Infinity : level, files };
}

/** The map in `directory`, or undefined when there is none yet. */
export async function readIndexMap(directory: string): Promise<IndexMap | undefined> {
  const path = join(directory, INDEXMAP_FILE);
  let text: string;
  try {
    text = await readFile(path, 'latin1');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw Errors.storageIo.create(path, 'read', String(error));
  }
  return parseIndexMap(text, path);
}

export async function writeIndexMap(directory: string, map: IndexMap): Promise<void> {
  await replaceFileDurably(join(directory, INDEXMAP_FILE), serializeIndexMap(map));
}

/**
 * Deletes what a crash or an interrupted merge left behind: index files and bloom filters the
 * map does not list, and temp files. Anything else in the directory is not ours and stays.
 */
export async function removeUnreferencedFiles(directory: string, map: IndexMap, logger: Logger): Promise<string[]> {
  const referenced = new Set(map.files.map((file) => file.id));
  const removed: string[] = [];
  const entries = await readdir(directory, { withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const name = entry.name;
    const id = indexFileIdOf(name);
    const orphan = isIndexFileName(id) && !referenced.has(id);
    if (!orphan && !isTempFile(name)) continue;
    await fileSystem.unlink(join(directory, name)).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw Errors.storageIo.create(join(directory, name), 'delete', String(error));
    });
    removed.push(name);
  }
  if (removed.length > 0) logger.info({ directory, removed }, 'removed index files the indexmap does not reference');
  return removed;
}

function parseCount(text: string): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

function md5Hex(text: string): string {
  return createHash('md5').update(text, 'latin1').digest('hex').toUpperCase();
}
