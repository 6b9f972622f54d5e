// Every file the engine writes goes through the file-system seam (src/storage/disk/file-system.ts),
// so that the fault tests (faults, disk-full, close-files) reach every write, fsync, truncate,
// rename and delete the engine makes. A storage file that imports one of those from node:fs
// itself would write past the seam, where no injected fault reaches it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';
import { nodeFileSystem, useFileSystem, fileSystem, type FileSystem } from '../../src/storage/disk/file-system.js';
import { repositoryRoot } from '../helpers/cli.js';

/** What changes a file, or opens a handle that can. */
const WRITING = new Set([
  'open', 'openSync', 'write', 'writeSync', 'writev', 'writevSync', 'writeFile', 'writeFileSync', 'appendFile', 'appendFileSync',
  'fsync', 'fsyncSync', 'fdatasync', 'fdatasyncSync', 'ftruncate', 'ftruncateSync', 'truncate', 'truncateSync',
  'rename', 'renameSync', 'unlink', 'unlinkSync', 'link', 'linkSync',
]);
/** Reads of index files while they are merged: a read-only open of a file the engine wrote itself. */
const READ_ONLY_OPENS = new Set(['src/storage/index/merge.ts']);
const SEAM = 'src/storage/disk/file-system.ts';

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(directory, name));
}

/** The names a file imports from node:fs or node:fs/promises. */
function fsImports(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+'node:fs(?:\/promises)?'/g)) {
    if (match[1]) continue;
    for (const part of match[2].split(',')) {
      const name = part.trim();
      if (name !== '' && !name.startsWith('type ')) names.push(name.split(/\s+as\s+/)[0]);
    }
  }
  return names;
}

t.test('no storage file writes, syncs, renames or deletes files past the seam', async (t) => {
  const offenders: string[] = [];
  for (const path of sourceFiles(join(repositoryRoot, 'src', 'storage'))) {
    const file = relative(repositoryRoot, path);
    if (file === SEAM) continue;
    const text = readFileSync(path, 'utf8');
    if (/import\s+(\*\s+as\s+)?\w+\s+from\s+'node:fs/.test(text)) offenders.push(`${file}: node:fs whole`);
    for (const name of fsImports(text)) {
      if (!WRITING.has(name)) continue;
      if (name === 'open' && READ_ONLY_OPENS.has(file)) continue;
      offenders.push(`${file}: ${name}`);
    }
  }
  t.same(offenders, [], 'file operations that change files come from storage/disk/file-system.ts');
});

t.test('an installed file system is in use until its restore puts back the one before it', async (t) => {
  const first: FileSystem = { ...nodeFileSystem };
  const second: FileSystem = { ...nodeFileSystem };
  const restoreFirst = useFileSystem(first);
  t.equal(fileSystem, first, 'the installed one is the one in use');
  const restoreSecond = useFileSystem(second);
  t.equal(fileSystem, second);
  restoreSecond();
  t.equal(fileSystem, first, 'a restore puts back the one it replaced');
  restoreFirst();
  t.equal(fileSystem, nodeFileSystem, 'and so on back to the real disk');
  restoreSecond();
  t.equal(fileSystem, nodeFileSystem, 'a second call of a restore (an early one, then the teardown\'s) changes nothing');
});
