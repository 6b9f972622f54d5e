import { Args } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { newPassword, newPasswordFlags } from '../../cli/new-password.js';
import { resetPassword } from '../../maint/users/users-client.js';
import { NodeClient } from '../../maint/node-client/node-client.js';

export default class UserPasswd extends NodeCommand {
  static override summary = 'Set a user\'s password (as an admin); it comes from --user-password-file or standard input.';

  static override description = [
    'POST /users/{login}/command/reset-password as an admin: the old password is not needed, and the node forgets the',
    'credentials it had verified for the user. Exit 19: no such user.',
    'Exit codes: man svcdb-user-passwd; every error code: man svcdb-errors.',
  ].join(' ');

  static override examples = [
    'pass show svcdb/ops | <%= config.bin %> <%= command.id %> ops',
    '<%= config.bin %> <%= command.id %> admin --user-password-file /etc/svcdb/admin-password',
  ];

  static override args = {
    login: Args.string({ description: 'Login name of the user.', required: true }),
  };

  static override flags = { ...newPasswordFlags };

  async run(): Promise<{ loginName: string }> {
    const { args, flags } = await this.parse(UserPasswd);
    const password = await newPassword(flags, this.commandLine());
    await resetPassword(await NodeClient.connect(this.connection(flags), this.chosenNode), args.login, password);
    this.log(`password of ${args.login} changed`);
    return { loginName: args.login };
  }
}
