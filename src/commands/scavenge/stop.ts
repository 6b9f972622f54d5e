import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { nodeFlags, oneNodeConnection } from '../../cli/node-flags.js';
import { scavengeDisplay } from '../../cli/scavenge-progress.js';
import type { ScavengeStopResult } from '../../maint/scavenge/result.js';
import { ScavengeClient } from '../../maint/scavenge/scavenge-client.js';

export default class ScavengeStop extends BaseCommand {
  static override summary = 'Stop the scavenge running on a node; the next start resumes it.';

  static override description = [
    'DELETE /admin/scavenge/current (or /admin/scavenge/ID with --id) at --url with the credentials of an admin or ops',
    'user. Exits 0 once the scavenge has stopped at a safe place; svcdb scavenge start resumes it from there.',
    'Exits 19 with SVCDB_ERR_SCAVENGE_NOT_FOUND when no scavenge (or not that one) is running.',
    'Exit codes: man svcdb-scavenge-stop; every error code: man svcdb-errors.',
  ].join(' ');

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --id 0b6a3c2e-5f0e-4a61-9d0c-2f1e6b7a8c9d --json',
  ];

  static override flags = {
    ...nodeFlags(),
    id: Flags.string({ summary: 'Stop only this scavenge (its id); the running one otherwise.', helpValue: 'ID' }),
    'timeout-seconds': Flags.integer({ summary: 'How long to wait for the node to stop the scavenge and answer.', min: 1, max: 600, default: 60 }),
  };

  async run(): Promise<ScavengeStopResult> {
    const { flags } = await this.parse(ScavengeStop);
    const client = await ScavengeClient.connect(oneNodeConnection(flags, flags['timeout-seconds'], this.commandLine()));
    const display = scavengeDisplay('Stopping the scavenge', this.jsonEnabled());
    try {
      const scavengeId = await client.stop(flags.id ?? 'current');
      display.succeed(`scavenge ${scavengeId} stopped; svcdb scavenge start resumes it`);
      return { url: client.url, scavengeId, stopped: true };
    } catch (error) {
      display.fail();
      throw error;
    }
  }
}
