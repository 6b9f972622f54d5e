import { Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { daemonOptions, optionDefaults, optionLimits } from '../daemon/options.js';
import { runDaemon, type RunResult } from '../daemon/run.js';

export default class Serve extends BaseCommand {
  static override summary = 'Run a database node: open the database and serve the HTTP API until stopped.';

  static override description = [
    'Takes the database lock, recovers the log, then listens for HTTP. Logs are JSON lines on stdout;',
    'the line with "msg":"listening" carries the bound address and port. SIGINT or SIGTERM stops the node',
    'cleanly (in-flight requests finish, the log is flushed, the lock released) and exits 0; a second',
    'signal exits at once. Exit codes and error codes: man/errors.md.',
  ].join(' ');

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --db /var/lib/svcdb/db --http-port 2113',
    'SVC_HTTP_PORT=0 <%= config.bin %> <%= command.id %> --db /tmp/svcdb-test/db',
  ];

  static override flags = {
    db: Flags.string({
      summary: 'Directory of the transaction log, checkpoints and lock file.',
      env: 'SVC_DB',
      default: optionDefaults.dbPath,
    }),
    index: Flags.string({
      summary: 'Directory of the index files.',
      description: 'Defaults to a directory named index next to the --db directory (<db>/../index).',
      env: 'SVC_INDEX',
    }),
    'http-ip': Flags.string({
      summary: 'IP address the HTTP server binds.',
      env: 'SVC_HTTP_IP',
      default: optionDefaults.httpIp,
    }),
    'http-port': Flags.integer({
      summary: 'Port the HTTP server binds; 0 picks any free port (the log line "listening" shows which).',
      env: 'SVC_HTTP_PORT',
      default: optionDefaults.httpPort,
      ...optionLimits.httpPort,
    }),
    'chunk-size': Flags.integer({
      summary: 'Logical data size of one log chunk, in bytes.',
      env: 'SVC_CHUNK_SIZE',
      default: optionDefaults.chunkSizeBytes,
      ...optionLimits.chunkSizeBytes,
    }),
  };

  async run(): Promise<RunResult> {
    const { flags } = await this.parse(Serve);
    const options = daemonOptions(
      {
        dbPath: flags.db,
        indexPath: flags.index,
        httpIp: flags['http-ip'],
        httpPort: flags['http-port'],
        chunkSizeBytes: flags['chunk-size'],
      },
      process.cwd(),
    );
    return runDaemon(options, this.config.version);
  }
}
