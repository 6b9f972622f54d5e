// A hint names only flags the command that printed it has: the errors of talking to a node reach
// every command with --url, so their hints may name no flag that one of those commands lacks
// (the 401 hint used to name --signal, which only cert-reload has).
import { Config } from '@oclif/core';
import t from 'tap';
import { hintFor } from '../../src/cli/hints.js';
import { Errors } from '../../src/common/errors.js';
import { repositoryRoot } from '../helpers/cli.js';

const nodeErrors = [Errors.clientUnreachable, Errors.clientTls, Errors.clientUnauthorized, Errors.clientUnexpectedReply, Errors.clientTimeout, Errors.clientNodeNotReady];

t.test('the hints of the node client errors name only flags of every command that talks to a node', async (t) => {
  const config = await Config.load(repositoryRoot);
  const nodeCommands = config.commands.filter((command) => command.pluginName === config.pjson.name && command.flags.url !== undefined);
  t.ok(nodeCommands.length >= 10, `${nodeCommands.length} commands talk to a node`);
  for (const error of nodeErrors) {
    const named = [...hintFor(error.code).matchAll(/--([a-z][a-z-]*)/g)].map((match) => match[1]);
    for (const command of nodeCommands) {
      const missing = named.filter((flag) => command.flags[flag] === undefined);
      t.same(missing, [], `${error.code}: svcdb ${command.id.replace(/:/g, ' ')} has every flag its hint names`);
    }
  }
});
