import { Args, Flags } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { exitQuietlyOnClosedPipe, writeLine } from '../../cli/stdout-lines.js';
import { eventJsonLine, eventTextLine } from '../../maint/streams/event-lines.js';
import { allFilterFlags, positionFlags } from '../../cli/stream-flags.js';
import { allFilterOf } from '../../maint/streams/all-filter.js';
import { followEvents } from '../../maint/streams/read.js';
import { NodeClient } from '../../maint/node-client/node-client.js';

export default class StreamTail extends NodeCommand {
  static override summary = 'Follow a stream, or $all, printing each event as it is written, until stopped (Ctrl-C).';

  static override description = [
    'Prints the events written from now on (or from --from on), as svcdb stream read prints them, and waits for',
    'new ones with long polls (the node holds each read open up to --long-poll-seconds). A stream that does not',
    'exist yet is waited for. --count stops after that many events. The filters select events of $all.',
    'Exit codes: man svcdb-stream-tail; every error code: man svcdb-errors.',
  ].join(' ');

  static override examples = [
    '<%= config.bin %> <%= command.id %> orders-1',
    '<%= config.bin %> <%= command.id %> orders-1 --from 0 --json',
    '<%= config.bin %> <%= command.id %> \'$all\' --stream-prefix orders- --exclude-system-events',
  ];

  static override args = {
    stream: Args.string({ description: 'The stream to follow, or $all (quote it in the shell: \'$all\').', required: true }),
  };

  static override flags = {
    ...positionFlags('events written from now on', 'Stop after this many events.'),
    'long-poll-seconds': Flags.integer({ summary: 'How long the node holds each read open waiting for an event.', min: 1, max: 300, default: 30 }),
    ...allFilterFlags,
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(StreamTail);
    const filter = allFilterOf(args.stream, flags, this.commandLine());
    const client = await NodeClient.connect(this.connection(flags), this.chosenNode);
    exitQuietlyOnClosedPipe();
    const format = this.jsonEnabled() ? eventJsonLine : eventTextLine;
    let printed = 0;
    for await (const event of followEvents(client, args.stream, { from: flags.from, filter, longPollSeconds: flags['long-poll-seconds'] })) {
      await writeLine(format(event));
      if (++printed === flags.count) return;
    }
  }
}
