/**
 * The base of the commands that talk to a running node over HTTP (stream, status): the node
 * flags (--url or SVC_URL, credentials, --ca-file), a timeout, and the connection they describe.
 */
import { Flags } from '@oclif/core';
import type { NodeConnection } from '../common/node-connection.js';
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

  /** The node the flags name; the command connects its client to it (maint/node-client). */
  protected connection(flags: NodeFlagValues & { 'timeout-seconds': number }): NodeConnection {
    return nodeConnection(flags, flags['timeout-seconds']);
  }
}
