/**
 * Reading a backup archive (archive-writer.ts) back: its manifest, which is the first entry, and
 * its files, extracted into a folder laid out as a backup folder. Only the names a backup holds are
 * written (isBackupEntry), which keeps every path inside the folder.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Parser, type ReadEntry } from 'tar';
import { Errors } from '../../common/errors.js';
import { ArchiveExtraction } from './archive-extraction.js';
import { BACKUP_DB_DIRECTORY, BACKUP_INDEX_DIRECTORY, MANIFEST_FILE } from './layout.js';
import { decodeManifest, type BackupManifest } from './manifest.js';

/** Whether `path` names an archive (a file) rather than a backup folder. */
export async function isArchive(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** Reads the first entry only; the rest of the archive is not decompressed. */
export function readArchiveManifest(path: string): Promise<BackupManifest> {
  return new Promise((resolve, reject) => {
    const input = createReadStream(path);
    const parser = new Parser({ strict: true });
    let settled = false;
    const settle = (error: Error | undefined, manifest?: BackupManifest) => {
      if (settled) return;
      settled = true;
      input.destroy();
      if (error) reject(error);
      else resolve(manifest!);
    };
    const refuse = (why: string) => settle(Errors.backupNotABackup.create(path, why));
    parser.on('entry', (entry: ReadEntry) => {
      if (settled || entry.path !== MANIFEST_FILE) {
        entry.resume();
        refuse(`its first entry is ${entry.path}, not ${MANIFEST_FILE}`);
        return;
      }
      const parts: Buffer[] = [];
      entry.on('data', (part: Buffer) => parts.push(part));
      entry.on('end', () => {
        try {
          settle(undefined, decodeManifest(Buffer.concat(parts).toString('utf8'), path));
        } catch (error) {
          settle(error as Error);
        }
      });
    });
    parser.on('error', (error: Error) => refuse(`it is not a tar.gz archive (${error.message})`));
    parser.on('end', () => refuse('the archive holds no entries'));
    input.on('error', (error) => settle(Errors.backupIo.create(path, 'read', error.message)));
    input.pipe(parser);
  });
}

/** The names a backup archive may hold: the manifest and files under db/ and index/. */
function isBackupEntry(path: string): boolean {
  if (path === MANIFEST_FILE) return true;
  const [top, ...rest] = path.split('/');
  return (top === BACKUP_DB_DIRECTORY || top === BACKUP_INDEX_DIRECTORY) && rest.length > 0 && !rest.includes('..');
}

/**
 * Extracts a backup archive into `folder`; a damaged or truncated archive fails, and only once
 * every file write into `folder` has ended.
 */
export async function extractArchive(path: string, folder: string): Promise<void> {
  try {
    await new ArchiveExtraction(folder, isBackupEntry).run(path);
  } catch (error) {
    const problem = `the archive is damaged or truncated: it cannot be read to its end: ${(error as Error).message}`;
    throw Errors.backupCorrupt.create(path, [{ file: path, problem }]);
  }
}
