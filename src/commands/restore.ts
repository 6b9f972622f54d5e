import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { dataDirectories, dataDirectoryFlags } from '../cli/data-directories.js';
import { formatBytes } from '../common/human-units.js';
import { progressDisplay } from '../cli/progress.js';
import { restore, type RestoreResult } from '../maint/backup/restore.js';

export default class Restore extends BaseCommand {
  static override summary = 'Restore a stopped node\'s data directories from a backup folder or archive.';

  static override description = [
    'Takes the node\'s lock (refused while a node runs there), copies every file of the backup into --db and',
    '--index, then copies chaser.chk over truncate.chk: the next svcdb serve cuts the log back to that point',
    'and rebuilds what lies above it. The directories must be empty unless --force, which deletes the database',
    'files there first. Any number of nodes may be restored from one backup; each is a new node for backups,',
    'so take a full backup of it afterwards. Exit codes: man svcdb-restore; every error code: man svcdb-errors.',
  ].join(' ');

  static override examples = [
    '<%= config.bin %> <%= command.id %> /backups/node1 --db /var/lib/svcdb/db',
    '<%= config.bin %> <%= command.id %> /backups/node1-2026-11-21.tar.gz --db /var/lib/svcdb/db --force',
  ];

  static override args = {
    source: Args.string({ description: 'A backup folder or .tar.gz archive written by svcdb backup.', required: true }),
  };

  static override flags = {
    ...dataDirectoryFlags,
    force: Flags.boolean({
      summary: 'Replace the database in non-empty target directories (its chunks, checkpoints and index files are deleted first).',
      default: false,
    }),
  };

  async run(): Promise<RestoreResult> {
    const { args, flags } = await this.parse(Restore);
    const display = progressDisplay('Restoring', this.jsonEnabled());
    let result: RestoreResult;
    try {
      result = await restore({
        source: args.source,
        ...dataDirectories(flags, process.cwd()),
        force: flags.force,
        onProgress: (progress) => display.update(progress),
      });
    } catch (error) {
      display.fail();
      throw error;
    }
    display.succeed(`restored ${result.filesRestored} files (${formatBytes(result.bytesRestored)}) into ${result.db} and ${result.index}; `
      + `the next start truncates the log to ${result.truncateTo}`);
    const interrupted = result.interruptedBackup;
    if (interrupted && !this.jsonEnabled()) {
      this.warn(`the ${interrupted.kind} backup into ${result.source} started at ${interrupted.startedAt} was interrupted; `
        + 'restored what the folder holds (svcdb backup verify says which backup that is)');
    }
    return result;
  }
}
