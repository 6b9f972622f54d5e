import { Args, Flags } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { setDisabled } from '../../maint/users/users-client.js';
import { NodeClient } from '../../maint/node-client/node-client.js';

export default class UserDisable extends NodeCommand {
  static override summary = 'Disable a user (its requests are refused from then on), or enable it again with --enable.';

  static override description = [
    'POST /users/{login}/command/disable (or enable) as an admin. The user and its groups stay; only its sign-in is',
    'refused. Exit 19: no such user. Exit codes: man svcdb-user-disable; every error code: man svcdb-errors.',
  ].join(' ');

  static override examples = ['<%= config.bin %> <%= command.id %> alice', '<%= config.bin %> <%= command.id %> alice --enable'];

  static override args = {
    login: Args.string({ description: 'Login name of the user.', required: true }),
  };

  static override flags = {
    enable: Flags.boolean({ summary: 'Enable the user again instead.', default: false }),
  };

  async run(): Promise<{ loginName: string; disabled: boolean }> {
    const { args, flags } = await this.parse(UserDisable);
    await setDisabled(await NodeClient.connect(this.connection(flags), this.chosenNode), args.login, !flags.enable);
    this.log(`user ${args.login} ${flags.enable ? 'enabled' : 'disabled'}`);
    return { loginName: args.login, disabled: !flags.enable };
  }
}
