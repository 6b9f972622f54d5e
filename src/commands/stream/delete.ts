import { Args, Flags } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { deleteStream, type DeleteResult } from '../../maint/streams/delete.js';
import { expectedVersionFlag, expectedVersionOfFlag } from '../../cli/stream-flags.js';
import { NodeClient } from '../../maint/node-client/node-client.js';

export default class StreamDelete extends NodeCommand {
  static override summary = 'Delete a stream: softly (an append brings it back), or for good with --hard.';

  static override description = [
    'A soft delete hides the stream: reads answer that it does not exist, and an append recreates it, numbering',
    'after its old last event; scavenge removes the old events. --hard writes a tombstone: the stream and its',
    'metadata are gone and the name can never be written again (exit 21 for any later append or delete).',
    'Exit codes: man svcdb-stream-delete; every error code: man svcdb-errors.',
  ].join(' ');

  static override examples = [
    '<%= config.bin %> <%= command.id %> orders-1',
    '<%= config.bin %> <%= command.id %> orders-1 --expected-version 4',
    '<%= config.bin %> <%= command.id %> customer-42 --hard',
  ];

  static override args = {
    stream: Args.string({ description: 'The stream to delete.', required: true }),
  };

  static override flags = {
    hard: Flags.boolean({ summary: 'Delete for good: the stream name can never be used again.', default: false }),
    'expected-version': expectedVersionFlag('Delete'),
  };

  async run(): Promise<DeleteResult> {
    const { args, flags } = await this.parse(StreamDelete);
    const expected = expectedVersionOfFlag(flags['expected-version']);
    const result = await deleteStream(await NodeClient.connect(this.connection(flags), this.chosenNode), args.stream, flags.hard, expected);
    this.log(result.hard ? `stream ${result.stream} deleted for good (a tombstone was written)` : `stream ${result.stream} deleted (an append recreates it)`);
    return result;
  }
}
