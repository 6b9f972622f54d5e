import { Args, Flags } from '@oclif/core';
import { writeSync } from 'node:fs';
import { BaseCommand } from '../cli/base-command.js';
import { dataDirectories, dataDirectoryFlags } from '../cli/data-directories.js';
import { formatBytes } from '../common/human-units.js';
import { progressDisplay } from '../cli/progress.js';
import { backup, type BackupResult } from '../maint/backup/backup.js';

/**
 * Testing hook, for the crash tests only: with SVC_TEST_BACKUP_STOP_AFTER=N the process stops
 * itself (SIGSTOP) right after the backup's N-th change to its destination, once it has said so
 * on stderr, so that a test can SIGKILL it at a chosen step. Not an option; nothing else reads it.
 */
function stopAfterChange(count: string | undefined): ((change: string) => void) | undefined {
  const stopAt = Number(count);
  if (!Number.isSafeInteger(stopAt) || stopAt < 1) return undefined;
  let changes = 0;
  return (change) => {
    if (++changes !== stopAt) return;
    writeSync(2, `svcdb backup: stopped after change ${changes}: ${change}\n`);
    process.kill(process.pid, 'SIGSTOP');
  };
}

export default class Backup extends BaseCommand {
  static override summary = 'Back up a node, running or stopped, into a folder (full or differential) or a .tar.gz archive.';

  static override description = [
    'Copies the node\'s files in the order of the service reference: index checkpoints, index files, database',
    'checkpoints, chunks. The node keeps running and taking writes; its lock is not needed. Every write',
    'acknowledged before the backup started is in the backup. --differential copies only what changed since the',
    'last backup into the same folder. A backup killed at any moment leaves the folder restorable (the backup it',
    'held, or the new one; backup verify says which) and the next backup into it finishes the work and deletes',
    'what the killed one left. Refused while a scavenge runs, into a folder that holds another node\'s',
    'backup, or from a directory that is not a node\'s. On a terminal a spinner shows the bytes copied of the',
    'total estimated at the start, the percent, the rate and the time left; elsewhere it is quiet unless --progress',
    'asks for those figures as lines on stderr. --json prints the result (files copied, skipped, removed).',
    'Exit codes: man svcdb-backup; every error code: man svcdb-errors.',
  ].join(' ');

  static override examples = [
    '<%= config.bin %> <%= command.id %> /backups/node1 --db /var/lib/svcdb/db',
    '<%= config.bin %> <%= command.id %> /backups/node1 --db /var/lib/svcdb/db --differential --json',
    '<%= config.bin %> <%= command.id %> --archive /backups/node1-$(date +%F).tar.gz --db /var/lib/svcdb/db',
    '<%= config.bin %> <%= command.id %> /backups/node1 --db /var/lib/svcdb/db --progress 2>>/var/log/svcdb-backup.log',
  ];

  static override args = {
    destination: Args.string({
      description: 'Backup folder: created if missing; it must be empty or hold a backup of the same node. Omit it with --archive.',
      required: false,
    }),
  };

  static override flags = {
    ...dataDirectoryFlags,
    differential: Flags.boolean({
      summary: 'Copy only what changed since the last backup into the destination folder (the reference\'s differential backup).',
      default: false,
    }),
    archive: Flags.string({
      summary: 'Write a full backup as one gzip-compressed tar file instead of a folder.',
      helpValue: 'FILE.tar.gz',
    }),
    progress: Flags.boolean({
      char: 'P',
      summary: 'Write progress lines on stderr (bytes of the estimated total, percent, rate, time left) also when stderr is not a terminal.',
      description: 'At most one line a second, and a last one when the backup is done; stdout is left to the result (--json).',
      default: false,
    }),
    'no-sync': Flags.boolean({
      summary: 'Do not fsync what is written, as cp -r or tar would not: faster, but a crash of the backup machine soon after can leave a torn backup (backup verify finds it).',
      default: false,
    }),
  };

  async run(): Promise<BackupResult> {
    const { args, flags } = await this.parse(Backup);
    const display = progressDisplay('Backing up', { json: this.jsonEnabled(), lines: flags.progress });
    let result: BackupResult;
    try {
      result = await backup({
        ...dataDirectories(flags, process.cwd()),
        destination: args.destination,
        archive: flags.archive,
        differential: flags.differential,
        sync: !flags['no-sync'],
        onProgress: (progress) => display.update(progress),
        onChange: stopAfterChange(process.env.SVC_TEST_BACKUP_STOP_AFTER),
      });
    } catch (error) {
      display.fail();
      throw error;
    }
    display.succeed(`${result.kind} backup of node ${result.nodeId} in ${result.destination}: `
      + `${result.filesCopied} files copied (${formatBytes(result.bytesCopied)}), ${result.filesSkipped} unchanged, ${result.filesRemoved} removed`
      + (result.synced ? '' : '; not fsynced (--no-sync): run sync before relying on it'));
    if (!this.jsonEnabled()) for (const warning of result.warnings) this.warn(warning);
    return result;
  }
}
