import { Args } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { table } from '../../cli/table.js';
import { listSubscriptions, type SubscriptionSummary } from '../../maint/subscriptions/subscriptions-client.js';
import { NodeClient } from '../../maint/node-client/node-client.js';

export default class SubscriptionList extends NodeCommand {
  static override summary = 'List the persistent subscription groups of a node, or of one stream.';

  static override description = [
    'GET /subscriptions (or /subscriptions/{stream}). Exit 19: the stream has no group.',
    'Exit codes: man svcdb-subscription-list; every error code: man svcdb-errors.',
  ].join(' ');

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> orders --json'];

  static override args = {
    stream: Args.string({ description: 'Only the groups of this stream.', required: false }),
  };

  async run(): Promise<SubscriptionSummary[]> {
    const { args, flags } = await this.parse(SubscriptionList);
    const groups = await listSubscriptions(await NodeClient.connect(this.connection(flags), this.chosenNode), args.stream);
    this.log(table(['STREAM', 'GROUP', 'STATUS', 'PROCESSED', 'LAST EVENT', 'CONNECTIONS'], groups.map((group) => [
      group.eventStreamId, group.groupName, group.status, String(group.totalItemsProcessed),
      `${group.lastProcessedEventNumber}/${group.lastKnownEventNumber}`, String(group.connectionCount),
    ])));
    return groups;
  }
}
