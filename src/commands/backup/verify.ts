import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { progressDisplay } from '../../cli/progress.js';
import { verifyBackup, type VerifyResult } from '../../maint/backup/verify.js';

export default class BackupVerify extends BaseCommand {
  static override summary = 'Check a backup folder or archive without starting a node: chunk hashes, checkpoints, index manifest.';

  static override description = [
    'Checks that the backup finished, that its checkpoints agree, that its chunks follow each other and match the',
    'hashes in their footers (and the records of an ongoing last chunk their checksums), and that indexmap and',
    'every index file it lists are intact. It lists every problem with its file and exits 4 if there is any;',
    'damage the node repairs by itself (a bloom filter, the existence filter) is reported as a warning.',
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
    display.succeed(`backup of node ${result.nodeId} is intact: ${result.chunks} chunks, ${result.indexFiles} index files; a restore keeps the log up to ${result.restoreEndsAt}`);
    if (!this.jsonEnabled()) for (const warning of result.warnings) this.warn(`${warning.file}: ${warning.problem}`);
    return result;
  }
}
