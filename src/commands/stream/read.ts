import { Args, Flags } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { exitQuietlyOnClosedPipe, writeLine } from '../../cli/stdout-lines.js';
import { eventJsonLine, eventTextLine } from '../../maint/streams/event-lines.js';
import { allFilterFlags, positionFlags } from '../../cli/stream-flags.js';
import { allFilterOf } from '../../maint/streams/all-filter.js';
import { readEvents } from '../../maint/streams/read.js';
import { NodeClient } from '../../maint/node-client/node-client.js';

export default class StreamRead extends NodeCommand {
  static override summary = 'Print the events of a stream, or of $all, oldest first (or newest first with --backwards).';

  static override description = [
    'One line per event: number@stream, type and data as stored. --json prints one JSON object per line (NDJSON):',
    'stream, eventNumber, eventType, eventId, created, isJson, data and metadata, the data and metadata being the',
    'stored JSON spliced in unchanged. Reads to the end of the stream unless --count says how many. $all needs an',
    'admin user; its positions are the 32 hex digits the node writes in its links. Exit 19: the stream does not exist.',
    'Exit codes: man svcdb-stream-read; every error code: man svcdb-errors.',
  ].join(' ');

  static override examples = [
    '<%= config.bin %> <%= command.id %> orders-1',
    '<%= config.bin %> <%= command.id %> orders-1 --from 10 --count 5 --json',
    '<%= config.bin %> <%= command.id %> orders-1 --backwards --count 1',
    '<%= config.bin %> <%= command.id %> \'$all\' --event-type-prefix Order --json | jq .data',
  ];

  static override args = {
    stream: Args.string({ description: 'The stream to read, or $all (quote it in the shell: \'$all\').', required: true }),
  };

  static override flags = {
    ...positionFlags('the start, or with --backwards the end', 'Read at most this many events.'),
    backwards: Flags.boolean({ char: 'b', summary: 'Newest first.', default: false }),
    ...allFilterFlags,
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(StreamRead);
    const filter = allFilterOf(args.stream, flags, this.commandLine());
    const client = await NodeClient.connect(this.connection(flags), this.chosenNode);
    exitQuietlyOnClosedPipe();
    const format = this.jsonEnabled() ? eventJsonLine : eventTextLine;
    for await (const event of readEvents(client, args.stream, { from: flags.from, count: flags.count, backwards: flags.backwards, filter })) {
      await writeLine(format(event));
    }
  }
}
