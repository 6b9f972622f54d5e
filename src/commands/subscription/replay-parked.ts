import { Args } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { replayParked } from '../../maint/subscriptions/subscriptions-client.js';
import { NodeClient } from '../../maint/node-client/node-client.js';

export default class SubscriptionReplayParked extends NodeCommand {
  static override summary = 'Deliver a group\'s parked messages to its consumers again.';

  static override description = [
    'POST /subscriptions/{stream}/{group}/replayParked as an admin or ops user: the messages parked after too many',
    'retries go back to the consumers. Exit 19: no such group.',
    'Exit codes: man svcdb-subscription-replay-parked; every error code: man svcdb-errors.',
  ].join(' ');

  static override examples = ['<%= config.bin %> <%= command.id %> orders billing'];

  static override args = {
    stream: Args.string({ description: 'The stream of the group.', required: true }),
    group: Args.string({ description: 'Name of the group.', required: true }),
  };

  async run(): Promise<{ stream: string; group: string }> {
    const { args, flags } = await this.parse(SubscriptionReplayParked);
    await replayParked(await NodeClient.connect(this.connection(flags), this.chosenNode), args.stream, args.group);
    this.log(`parked messages of ${args.group} on ${args.stream} are being delivered again`);
    return { stream: args.stream, group: args.group };
  }
}
