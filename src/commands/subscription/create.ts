import { Args, Flags } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { createSubscription, type GroupSettings } from '../../maint/subscriptions/subscriptions-client.js';
import { NodeClient } from '../../maint/node-client/node-client.js';

export default class SubscriptionCreate extends NodeCommand {
  static override summary = 'Create a persistent subscription group on a stream.';

  static override description = [
    'PUT /subscriptions/{stream}/{group} as an admin or ops user, with the node\'s defaults for every setting not',
    'given. Consumers then read the group\'s messages over HTTP and acknowledge them. Exit 2 when the node refuses a',
    'setting. Exit codes: man svcdb-subscription-create; every error code: man svcdb-errors.',
  ].join(' ');

  static override examples = [
    '<%= config.bin %> <%= command.id %> orders billing',
    '<%= config.bin %> <%= command.id %> orders audit --start-from 0 --strategy DispatchToSingle --max-retry-count 3',
  ];

  static override args = {
    stream: Args.string({ description: 'The stream the group reads.', required: true }),
    group: Args.string({ description: 'Name of the group.', required: true }),
  };

  static override flags = {
    'start-from': Flags.integer({ summary: 'Event number of the first message; -1 for events written from now on.', min: -1, default: 0 }),
    strategy: Flags.string({ summary: 'How messages are shared among consumers.', options: ['RoundRobin', 'DispatchToSingle', 'Pinned', 'PinnedByCorrelation'] }),
    'max-retry-count': Flags.integer({ summary: 'Deliveries of a message before it is parked.', min: 0 }),
    'message-timeout-ms': Flags.integer({ summary: 'How long a consumer has to acknowledge a message before it is delivered again.', min: 0 }),
    'resolve-link-tos': Flags.boolean({ summary: 'Deliver the events that links point at.', default: false }),
  };

  async run(): Promise<{ stream: string; group: string; settings: GroupSettings }> {
    const { args, flags } = await this.parse(SubscriptionCreate);
    const settings: GroupSettings = { startFrom: flags['start-from'], resolveLinktos: flags['resolve-link-tos'] };
    if (flags.strategy !== undefined) settings.namedConsumerStrategy = flags.strategy;
    if (flags['max-retry-count'] !== undefined) settings.maxRetryCount = flags['max-retry-count'];
    if (flags['message-timeout-ms'] !== undefined) settings.messageTimeoutMilliseconds = flags['message-timeout-ms'];
    await createSubscription(await NodeClient.connect(this.connection(flags), this.chosenNode), args.stream, args.group, settings);
    this.log(`group ${args.group} created on ${args.stream}`);
    return { stream: args.stream, group: args.group, settings };
  }
}
