import { Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { DB_DEFAULT, dataDirectories } from '../cli/data-directories.js';
import { progressDisplay } from '../cli/progress.js';
import { reloadOverHttp } from '../maint/cert-reload/http-reload.js';
import type { CertReloadResult } from '../maint/cert-reload/result.js';
import { reloadBySignal } from '../maint/cert-reload/signal-reload.js';
import { nodeFlags, oneNodeConnection, typedFlags } from '../cli/node-flags.js';
import { Errors } from '../common/errors.js';

export default class CertReload extends BaseCommand {
  static override summary = 'Reload a running node\'s certificates from their files, without a restart.';

  static override description = [
    'Asks the node to read --cert-file, --cert-private-key-file and --trusted-root-certificates-path again:',
    'by default with POST /admin/reloadconfig at --url and the credentials of an admin or ops user; with --signal',
    'by sending SIGHUP to the process that holds <db>/svcdb.lock and reading the outcome the node records in',
    '<db>/svcdb-reload.json. Exits 0 only when the reload took effect. A reload that fails any check changes',
    'nothing on the node, and the command exits with the node\'s error (exit 9 for SVCDB_ERR_CERT_*). Exit 10: the',
    'node could not be reached or did not answer in time; exit 11: it refused the credentials. Quiet unless',
    'stderr is a terminal; --json prints the result. Exit codes: man svcdb-cert-reload; every error code: man svcdb-errors.',
  ].join(' ');

  static override usage = [
    '<%= command.id %> [--url URL] [--username NAME] [--password-file FILE | --password PASSWORD] [--ca-file FILE] [--timeout-seconds N] [--json]',
    '<%= command.id %> --signal [--db DIR] [--timeout-seconds N] [--json]',
  ];

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --url https://node1.example.com:2113 --ca-file /etc/svcdb/ca/ca.pem',
    'SVC_USERNAME=ops SVC_PASSWORD_FILE=/etc/svcdb/ops-password <%= config.bin %> <%= command.id %> --json',
    '<%= config.bin %> <%= command.id %> --signal --db /var/lib/svcdb/db',
  ];

  static override flags = {
    ...nodeFlags(),
    signal: Flags.boolean({
      summary: 'Send SIGHUP to the node running on --db (same machine) instead of an HTTP request.',
      default: false,
    }),
    db: Flags.string({
      summary: 'With --signal: the database directory of the node, whose svcdb.lock holds its pid (as for svcdb serve).',
      env: 'SVC_DB',
      default: DB_DEFAULT,
    }),
    'timeout-seconds': Flags.integer({
      summary: 'How long to wait for the node to answer, or with --signal to record the reload.',
      min: 1,
      max: 600,
      default: 10,
    }),
  };

  async run(): Promise<CertReloadResult> {
    const { flags } = await this.parse(CertReload);
    const withSignal = flags.signal ? typedFlags(this.argv, ['url', 'ca-file', 'password', 'password-file']) : [];
    if (withSignal.length > 0) {
      throw Errors.cliUsage.create(`--${withSignal[0]} cannot also be provided when using --signal, which sends no request`, this.commandLine());
    }
    const timeoutMs = flags['timeout-seconds'] * 1000;
    const display = progressDisplay('Reloading certificates', this.jsonEnabled());
    let result: CertReloadResult;
    try {
      result = flags.signal
        ? await reloadBySignal({ dbPath: dataDirectories(flags, process.cwd()).db, timeoutMs })
        : await reloadOverHttp(oneNodeConnection(flags, flags['timeout-seconds'], this.commandLine()));
    } catch (error) {
      display.fail();
      throw error;
    }
    const node = result.via === 'http' ? `the node at ${result.url}` : `process ${result.pid}`;
    display.succeed(`${node}: ${result.result === 'nothing to reload' ? 'no certificates configured (plain HTTP), nothing to reload' : 'certificates reloaded'}`);
    return result;
  }
}
