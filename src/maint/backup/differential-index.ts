/**
 * The reference's differential backup, index part, step by step:
 *   (1) if the index directory holds no files (only directories), skip to the log part;
 *   (2) copy index/indexmap to the backup, repeating until the source file exists;
 *   (3) list all index/<GUID> and index/<GUID>.bloomfilter files as indexFiles;
 *   (4) copy those, skipping names already in the backup;
 *   (5) compare indexmap in source and backup; if different or gone, return to step 2;
 *   (6) delete from the backup any GUID and bloomfilter files not in indexFiles;
 *   (7) copy streamExistenceFilter.chk if present;
 *   (8) copy streamExistenceFilter.dat if present;
 *   (9) copy scavenging/scavenging.db if present.
 * Index files are immutable and named by a fresh GUID, so a name the backup has is the same file.
 * Steps (8) and (9) copy files rewritten in place; they are skipped when the backup's copy still
 * matches by size and modification time (file-copy.ts copyIfChanged), so an unchanged node
 * copies (almost) nothing.
 *
 * The source is read in this order. The backup folder is written so that a run killed at any
 * point leaves a backup that restores (target.ts): the map read in (2) is held in memory and
 * written once the files it lists are in the backup and (5) found it unchanged, so the backup's
 * map never names a file the backup lacks; (7) is written when the backup commits, after the
 * filter it covers; and the deletions of (6) are returned to the caller, which makes them once the
 * new backup is committed, since the previous backup's map may still name those files until then.
 */
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { COPY_CONCURRENCY, forEachConcurrently } from './concurrency.js';
import { fileBytes } from './estimate.js';
import { copyCheckpoint, indexPath } from './full-backup.js';
import {
  INDEX_ROUNDS_MAX, holdsFiles, indexKeptChanging, listIndexDataFiles, parseIndexMapBytes, readIndexMapBytes,
  readSourceIndexMap,
} from './index-source.js';
import { INDEXMAP_FILE, IndexPath } from '../../storage/layout.js';
import { BACKUP_INDEX_DIRECTORY } from './layout.js';
import type { Tally } from './progress.js';
import type { DataDirectories } from './source.js';
import type { FolderTarget } from './target.js';

export interface IndexPartOutcome {
  skipped: boolean;
  indexFiles: string[];
  commitPosition: number;
  rounds: number;
  /** Step (6): the backup's index files the node no longer has, to delete once the backup is committed. */
  stale: string[];
}

export async function differentialIndexPart(source: DataDirectories, target: FolderTarget, tally: Tally): Promise<IndexPartOutcome> {
  tally.phase('index files');
  // (1)
  if (!(await holdsFiles(source.index))) return { skipped: true, indexFiles: [], commitPosition: 0, rounds: 0, stale: [] };
  const backupIndex = target.path(BACKUP_INDEX_DIRECTORY);
  let indexFiles: string[] = [];
  let map: Buffer | undefined;
  let rounds = 0;
  for (; ; rounds++) {
    if (rounds === INDEX_ROUNDS_MAX) throw indexKeptChanging();
    // (2)
    map = await readSourceIndexMap(source.index);
    if (map === undefined) return { skipped: true, indexFiles: [], commitPosition: 0, rounds, stale: [] };
    // (3)
    indexFiles = await listIndexDataFiles(source.index);
    // (4)
    const missing = indexFiles.filter((name) => !existsSync(join(backupIndex, name)));
    for (const name of indexFiles) if (!missing.includes(name)) tally.skipped(indexPath(name), await fileBytes(join(source.index, name)));
    await forEachConcurrently(missing, COPY_CONCURRENCY, async (name) => {
      tally.working(indexPath(name));
      const bytes = await target.copyFile(join(source.index, name), indexPath(name));
      // Merged away since the listing: the map changed as well, and step (5) sends us back.
      if (bytes !== undefined) tally.copied(indexPath(name), bytes);
    });
    // (5)
    const sourceMap = await readIndexMapBytes(source.index);
    if (sourceMap !== undefined && sourceMap.equals(map)) break;
  }
  // (2)'s copy, now that every file the map lists is in the backup.
  await target.writeBytes(indexPath(INDEXMAP_FILE), map);
  tally.copied(indexPath(INDEXMAP_FILE), map.length);
  // (6)
  const keep = new Set(indexFiles);
  const stale = (await listIndexDataFiles(backupIndex)).filter((name) => !keep.has(name));
  // (7), (8), (9)
  await copyCheckpoint(source.index, IndexPath.existenceCheckpoint, indexPath(IndexPath.existenceCheckpoint), target, tally);
  for (const file of [IndexPath.existenceData, IndexPath.scavengeState]) {
    tally.working(indexPath(file));
    const copy = await target.copyIfChanged(join(source.index, file), indexPath(file));
    if (copy?.copied) tally.copied(indexPath(file), copy.bytes);
    else if (copy) tally.skipped(indexPath(file), await fileBytes(join(source.index, file)));
  }
  const commitPosition = parseIndexMapBytes(map, join(source.index, INDEXMAP_FILE)).commitPosition;
  return { skipped: false, indexFiles, commitPosition, rounds: rounds + 1, stale: stale.map(indexPath) };
}
