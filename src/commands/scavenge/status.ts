import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { nodeFlags, oneNodeConnection } from '../../cli/node-flags.js';
import { scavengeProgressText } from '../../cli/scavenge-progress.js';
import type { ScavengeStatusResult } from '../../maint/scavenge/result.js';
import { ScavengeClient } from '../../maint/scavenge/scavenge-client.js';

export default class ScavengeStatus extends BaseCommand {
  static override summary = 'Show the scavenge running on a node, if any: its id, phase, chunks done and bytes reclaimed.';

  static override description = [
    'GET /admin/scavenge/current at --url with the credentials of an admin or ops user. Prints one line',
    '(or the result with --json) and exits 0 whether or not a scavenge runs.',
    'Exit codes: man svcdb-scavenge-status; every error code: man svcdb-errors.',
  ].join(' ');

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --json',
  ];

  static override flags = {
    ...nodeFlags(),
    'timeout-seconds': Flags.integer({ summary: 'How long to wait for the node to answer.', min: 1, max: 600, default: 10 }),
  };

  async run(): Promise<ScavengeStatusResult> {
    const { flags } = await this.parse(ScavengeStatus);
    const client = await ScavengeClient.connect(oneNodeConnection(flags, flags['timeout-seconds'], this.commandLine()));
    const scavenge = await client.current();
    if (!this.jsonEnabled()) this.log(scavenge ? `scavenge ${scavenge.scavengeId}: ${scavengeProgressText(scavenge)}` : 'no scavenge is running');
    return { url: client.url, running: scavenge !== undefined, ...(scavenge && { scavenge }) };
  }
}
