/**
 * The base of the commands that talk to a running node over HTTP (stream, status): the node
 * flags (--url or SVC_URL, credentials, --ca-file), a timeout, and the connection they describe:
 * one node, or the nodes of a cluster of which the client uses the leader.
 */
import { Flags } from '@oclif/core';
import type { NodeConnection } from '../common/node-connection.js';
import { BaseCommand } from './base-command.js';
import { nodeConnection, nodeFlags, oneNodeConnection, type NodeFlagValues } from './node-flags.js';

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

  /**
   * The node the flags name, or the nodes of a cluster; the command connects its client to it
   * (maint/node-client), which with several goes to the leader and reports it to `chosenNode`.
   */
  protected connection(flags: NodeFlagValues & { 'timeout-seconds': number }): NodeConnection {
    return nodeConnection(flags, flags['timeout-seconds']);
  }

  /** The one node a command that acts on the node receiving it talks to; several URLs are refused. */
  protected oneNodeConnection(flags: NodeFlagValues & { 'timeout-seconds': number }): NodeConnection {
    return oneNodeConnection(flags, flags['timeout-seconds'], this.commandLine());
  }

  /** Says on stderr which of several nodes the command used, so that the output never hides it. */
  protected readonly chosenNode = (choice: { url: string; namedBy?: string }): void => {
    this.logToStderr(`using the leader at ${choice.url}${choice.namedBy === undefined ? '' : ` (named by ${choice.namedBy})`}`);
  };
}
