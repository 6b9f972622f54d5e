import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { nodeFlags, oneNodeConnection } from '../../cli/node-flags.js';
import { timeSpan } from '../../cli/human-text.js';
import { formatBytes } from '../../common/human-units.js';
import { scavengeDisplay } from '../../cli/scavenge-progress.js';
import { followScavenge } from '../../maint/scavenge/follow.js';
import { checkCompleted, type ScavengeStartResult } from '../../maint/scavenge/result.js';
import { ScavengeClient } from '../../maint/scavenge/scavenge-client.js';

export default class ScavengeStart extends BaseCommand {
  static override summary = 'Start a scavenge on a running node, and with --wait follow it to its end.';

  static override description = [
    'POST /admin/scavenge at --url with the credentials of an admin or ops user. The node resumes a stopped scavenge,',
    'or scavenges to a scavenge point it has not reached, or (unless --sync-only) writes a new point and scavenges to it.',
    'Without --wait the command exits 0 once the scavenge has started. With --wait it follows the scavenge to its end',
    '(a spinner shows the phase, chunks done and bytes reclaimed when stderr is a terminal) and exits 0 only when the',
    'scavenge succeeded: 15 when it failed, 16 when it was stopped (svcdb scavenge stop, or the node shutting down).',
    'Exit 14: a scavenge is already running; 10: the node could not be reached; 11: it refused the credentials.',
    'Quiet on success unless stderr is a terminal, so cron mails only failures; --json prints the result.',
    'A crontab line, nightly at 02:30 and throttled to half the time:',
    '30 2 * * * SVC_USERNAME=ops SVC_PASSWORD_FILE=/etc/svcdb/ops-password svcdb scavenge start --throttle-percent 50 --wait.',
    'Exit codes: man svcdb-scavenge-start; every error code: man svcdb-errors.',
  ].join(' ');

  static override usage = [
    '<%= command.id %> [--threads N] [--threshold N] [--throttle-percent N] [--sync-only] [--wait] [--url URL] [--username NAME] [--password-file FILE] [--ca-file FILE] [--json]',
  ];

  static override examples = [
    '<%= config.bin %> <%= command.id %> --wait',
    'SVC_USERNAME=ops SVC_PASSWORD_FILE=/etc/svcdb/ops-password <%= config.bin %> <%= command.id %> --throttle-percent 50 --wait',
    '<%= config.bin %> <%= command.id %> --threads 2 --threshold 100 --url https://node1.example.com:2113 --ca-file /etc/svcdb/ca/ca.pem --json',
  ];

  static override flags = {
    ...nodeFlags(),
    threads: Flags.integer({ summary: 'Chunks scavenged in parallel (1–4); more than 1 needs --throttle-percent 100.', min: 1, max: 4, default: 1 }),
    threshold: Flags.integer({
      summary: 'Minimum chunk weight to rewrite a chunk, for a new scavenge point: -1 every chunk, 0 any chunk with something to remove.',
      min: -1, default: 0,
    }),
    'throttle-percent': Flags.integer({ summary: 'Share of the time the scavenge works (1–100); 50 makes it take about twice as long.', min: 1, max: 100, default: 100 }),
    'sync-only': Flags.boolean({ summary: 'Never write a new scavenge point: only scavenge to one that exists and is not reached yet.', default: false }),
    wait: Flags.boolean({ summary: 'Follow the scavenge to its end; exit 0 only if it succeeded.', default: false }),
    'timeout-seconds': Flags.integer({ summary: 'How long to wait for each answer of the node.', min: 1, max: 600, default: 30 }),
  };

  async run(): Promise<ScavengeStartResult> {
    const { flags } = await this.parse(ScavengeStart);
    const client = await ScavengeClient.connect(oneNodeConnection(flags, flags['timeout-seconds'], this.commandLine()));
    const display = scavengeDisplay('Starting a scavenge', this.jsonEnabled());
    try {
      const scavengeId = await client.start({
        threads: flags.threads, threshold: flags.threshold, throttlePercent: flags['throttle-percent'], syncOnly: flags['sync-only'],
      });
      if (!flags.wait) {
        display.succeed(`scavenge ${scavengeId} started on ${client.url}`);
        return { url: client.url, scavengeId };
      }
      const completed = checkCompleted(await followScavenge(client, scavengeId, (state) => display.update(state)));
      display.succeed(`scavenge ${scavengeId} succeeded in ${timeSpan(completed.timeTaken)}: ${formatBytes(completed.spaceSaved)} reclaimed`
        + (completed.maxChunkScavenged >= 0 ? `; chunks 0 to ${completed.maxChunkScavenged} were scavenged` : ''));
      return { url: client.url, scavengeId, completed };
    } catch (error) {
      display.fail();
      throw error;
    }
  }
}
