import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { count } from '../../cli/human-text.js';
import { formatBytes } from '../../common/human-units.js';
import { progressDisplay } from '../../cli/progress.js';
import { verifyBackup, type VerifyResult } from '../../maint/backup/verify.js';

/** Which backup the checked files hold, in words. */
function describeHeld(result: VerifyResult): string {
  const last = result.generation === undefined
    ? `the ${result.kind} backup started at ${result.startedAt}`
    : `generation ${result.generation}, the ${result.kind} backup finished at ${result.finishedAt ?? 'an unrecorded time'}`;
  const run = result.interrupted;
  if (!run) return `it holds ${last}`;
  const which = `the ${run.kind} backup started at ${run.startedAt} (generation ${run.generation})`;
  const state = run.stillRunning ? 'is still running' : 'was interrupted';
  if (result.holds === 'interrupted-backup') {
    return `it holds a newer log than ${last}, written by an interrupted backup (the last one into the folder is ${which}, which ${state}); run the backup again to finish it`;
  }
  return `it holds ${last}: ${which} ${state} before it wrote the new log; run the backup again to finish it`;
}

/** Where a restore cuts the log: a log position is a byte offset, so it says how much of the log that is. */
function restoreText(position: number | undefined): string {
  return position === undefined ? 'a restore keeps the log the backup holds' : `a restore keeps the log up to position ${position} (its first ${formatBytes(position)})`;
}

export default class BackupVerify extends BaseCommand {
  static override summary = 'Check a backup folder or archive without starting a node: chunk hashes, checkpoints, index manifest.';

  static override description = [
    'Checks that the backup finished, that its checkpoints agree, that its chunks follow each other and match the',
    'hashes in their footers (and the records of an ongoing last chunk their checksums), and that indexmap and',
    'every index file it lists are intact. It lists every problem with its file and exits 4 if there is any;',
    'damage the node repairs by itself (a bloom filter, the existence filter) is reported as a warning. It says which',
    'backup the folder holds: the last one that finished or, if a later backup into it was interrupted, the one before',
    'that run or the new log that run had written; the next backup into the folder finishes the interrupted one.',
    'Exit codes: man svcdb-backup-verify; every error code: man svcdb-errors.',
  ].join(' ');

  static override examples = [
    '<%= config.bin %> <%= command.id %> /backups/node1',
    '<%= config.bin %> <%= command.id %> /backups/node1-2026-11-21.tar.gz --json',
  ];

  static override args = {
    source: Args.string({ description: 'A backup folder or .tar.gz archive written by svcdb backup.', required: true }),
  };

  async run(): Promise<VerifyResult> {
    const { args } = await this.parse(BackupVerify);
    const display = progressDisplay('Verifying', this.jsonEnabled());
    let result: VerifyResult;
    try {
      result = await verifyBackup({ source: args.source, onProgress: (progress) => display.update(progress) });
    } catch (error) {
      display.fail();
      throw error;
    }
    const summary = `backup of node ${result.nodeId} is intact: ${count(result.chunks, 'chunk')}, ${count(result.indexFiles, 'index file')}; `
      + `${describeHeld(result)}; ${restoreText(result.restoreEndsAt)}`;
    display.succeed(summary);
    // Quiet from cron like the other backup commands, unless an interrupted backup needs finishing.
    // One line, unwrapped, for logs and scripts that grep it.
    if (!this.jsonEnabled() && result.interrupted && !process.stderr.isTTY) this.logToStderr(summary);
    if (!this.jsonEnabled()) for (const warning of result.warnings) this.warn(`${warning.file}: ${warning.problem}`);
    return result;
  }
}
