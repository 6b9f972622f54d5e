import { Args, Flags } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { writeLine } from '../../cli/stdout-lines.js';
import { projectionState } from '../../maint/projections/projections-client.js';
import { NodeClient } from '../../maint/node-client/node-client.js';

export default class ProjectionState extends NodeCommand {
  static override summary = 'Print the state of a projection (or of one partition) as the node stores it.';

  static override description = [
    'GET /projection/{name}/state. The state is printed as the JSON text the node holds, unchanged; nothing when the',
    'projection has no state yet. Exit 19: no such projection.',
    'Exit codes: man svcdb-projection-state; every error code: man svcdb-errors.',
  ].join(' ');

  static override examples = ['<%= config.bin %> <%= command.id %> order-totals', '<%= config.bin %> <%= command.id %> per-customer --partition customer-42 | jq .'];

  static override args = {
    name: Args.string({ description: 'Name of the projection.', required: true }),
  };

  static override flags = {
    partition: Flags.string({ char: 'p', summary: 'The partition whose state to print, for a partitioned projection.', helpValue: 'PARTITION' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ProjectionState);
    const state = await projectionState(await NodeClient.connect(this.connection(flags), this.chosenNode), args.name, flags.partition);
    if (state !== '') await writeLine(state);
  }
}
