import { NodeCommand } from '../../cli/node-command.js';
import { table } from '../../cli/table.js';
import { listProjections, type ProjectionSummary } from '../../maint/projections/projections-client.js';
import { NodeClient } from '../../maint/node-client/node-client.js';

export default class ProjectionList extends NodeCommand {
  static override summary = 'List the projections of a node: name, mode, status and progress.';

  static override description = 'GET /projections/any. Exit codes: man svcdb-projection-list; every error code: man svcdb-errors.';

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json'];

  async run(): Promise<ProjectionSummary[]> {
    const { flags } = await this.parse(ProjectionList);
    const projections = await listProjections(await NodeClient.connect(this.connection(flags), this.chosenNode));
    this.log(table(['NAME', 'MODE', 'STATUS', 'PROGRESS'],
      projections.map((projection) => [projection.name, projection.mode, projection.status, `${projection.progress}%`])));
    return projections;
  }
}
