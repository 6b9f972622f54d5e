/**
 * The base of the commands that talk to a running node over HTTP (stream, status): the node
 * flags (--url or SVC_URL, credentials, --ca-file), a timeout, and one client for the command.
 */
import { Flags } from '@oclif/core';
import { NodeClient } from '../maint/node-client/node-client.js';
import { BaseCommand } from './base-command.js';
import { nodeConnection, nodeFlags, type NodeFlagValues } from './node-flags.js';

export abstract class NodeCommand extends BaseCommand {
  static override baseFlags = {
    ...BaseCommand.baseFlags,
    ...nodeFlags(),
    'timeout-seconds': Flags.integer({
      summary: 'How long to wait for each answer of the node.',
      min: 1,
      max: 600,
      default: 10,
      helpGroup: 'NODE',
    }),
  };

  protected nodeClient(flags: NodeFlagValues & { 'timeout-seconds': number }): Promise<NodeClient> {
    return NodeClient.connect(nodeConnection(flags, flags['timeout-seconds']));
  }
}
