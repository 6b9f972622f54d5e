import { Args, Flags } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { newPassword, newPasswordFlags } from '../../cli/new-password.js';
import { addUser } from '../../maint/users/users-client.js';
import { NodeClient } from '../../maint/node-client/node-client.js';

export default class UserAdd extends NodeCommand {
  static override summary = 'Create a user; the password comes from --user-password-file or standard input.';

  static override description = [
    'POST /users/ as an admin. --group adds the user to a group ($admins, $ops, or any name used in stream ACLs),',
    'once per group. Exit 2 when the node refuses the login name or the details.',
    'Exit codes: man svcdb-user-add; every error code: man svcdb-errors.',
  ].join(' ');

  static override examples = [
    'pass show svcdb/alice | <%= config.bin %> <%= command.id %> alice --full-name "Alice Liddell" --group readers',
    '<%= config.bin %> <%= command.id %> backup-bot --group \'$ops\' --user-password-file /etc/svcdb/backup-bot-password',
  ];

  static override args = {
    login: Args.string({ description: 'Login name of the new user.', required: true }),
  };

  static override flags = {
    'full-name': Flags.string({ summary: 'The user\'s full name; the login name unless set.', helpValue: 'NAME' }),
    group: Flags.string({ char: 'g', summary: 'A group of the user (repeat for several).', multiple: true, helpValue: 'GROUP' }),
    ...newPasswordFlags,
  };

  async run(): Promise<{ loginName: string; groups: string[] }> {
    const { args, flags } = await this.parse(UserAdd);
    const password = await newPassword(flags, this.commandLine());
    const groups = flags.group ?? [];
    await addUser(await NodeClient.connect(this.connection(flags), this.chosenNode), { loginName: args.login, fullName: flags['full-name'] ?? args.login, groups, password });
    this.log(`user ${args.login} created${groups.length > 0 ? ` in ${groups.join(', ')}` : ''}`);
    return { loginName: args.login, groups };
  }
}
