import { Args } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { resetProjection } from '../../maint/projections/projections-client.js';
import { NodeClient } from '../../maint/node-client/node-client.js';

export default class ProjectionReset extends NodeCommand {
  static override summary = 'Reset a projection: forget its state and checkpoint, and run it again from the start of the log.';

  static override description = [
    'POST /projection/{name}/command/reset. Exit 19: no such projection.',
    'Exit codes: man svcdb-projection-reset; every error code: man svcdb-errors.',
  ].join(' ');

  static override examples = ['<%= config.bin %> <%= command.id %> order-totals'];

  static override args = {
    name: Args.string({ description: 'Name of the projection.', required: true }),
  };

  async run(): Promise<{ name: string }> {
    const { args, flags } = await this.parse(ProjectionReset);
    await resetProjection(await NodeClient.connect(this.connection(flags), this.chosenNode), args.name);
    this.log(`projection ${args.name} reset; it runs again from the start of the log`);
    return { name: args.name };
  }
}
