import { NodeCommand } from '../../cli/node-command.js';
import { table } from '../../cli/table.js';
import { listUsers, type UserSummary } from '../../maint/users/users-client.js';
import { NodeClient } from '../../maint/node-client/node-client.js';

export default class UserList extends NodeCommand {
  static override summary = 'List the users of a node: login, full name, groups, and whether each is disabled.';

  static override description = 'GET /users/ as an admin. Exit codes: man svcdb-user-list; every error code: man svcdb-errors.';

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json'];

  async run(): Promise<UserSummary[]> {
    const { flags } = await this.parse(UserList);
    const users = await listUsers(await NodeClient.connect(this.connection(flags), this.chosenNode));
    this.log(table(['LOGIN', 'FULL NAME', 'GROUPS', 'DISABLED'],
      users.map((user) => [user.loginName, user.fullName, user.groups.join(','), user.disabled ? 'yes' : 'no'])));
    return users;
  }
}
