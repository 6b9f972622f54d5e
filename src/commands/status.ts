import { NodeCommand } from '../cli/node-command.js';
import { checkServing, nodeStatus, statusLine, type NodeStatus } from '../maint/status/node-status.js';
import { NodeClient } from '../maint/node-client/node-client.js';

export default class Status extends NodeCommand {
  static override summary = 'Check that a node answers and serves, like pg_isready: exit 0 when it leads or follows.';

  static override description = [
    'GET /info at --url (no credentials needed) and prints the node\'s state and version. Exit 0: the node serves',
    '(leader, or read-only replica that follows its leader); 18: it answers but is starting or stopping; 22: it is a',
    'read-only replica that serves what it has but cannot reach its leader; 10: it cannot be reached (not running, wrong',
    '--url, an untrusted certificate, no answer in time). --json prints {url, state, version, serving}, and on a replica',
    'replication: {leaderUrl, connection, writerCheckpoint, leaderWriterCheckpoint, lagBytes, lagSeconds}. The lag is how',
    'much of the leader\'s durable log the replica has not made durable yet, in bytes and in seconds since the leader had it.',
    'Exit codes: man svcdb-status; every error code: man svcdb-errors.',
  ].join(' ');

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --url https://node1.example.com:2113 --ca-file /etc/svcdb/ca/ca.pem --json',
    'until <%= config.bin %> <%= command.id %> --timeout-seconds 1; do sleep 1; done',
  ];

  async run(): Promise<NodeStatus> {
    const { flags } = await this.parse(Status);
    const status = await nodeStatus(await NodeClient.connect(this.oneNodeConnection(flags)));
    if (status.serving) this.log(statusLine(status));
    return checkServing(status);
  }
}
