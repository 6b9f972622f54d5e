import { Flags, type Interfaces } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import {
  configKey, describeValues, environmentVariable, flagName, type OptionDefinition,
} from '../common/options/definition.js';
import { effectiveConfig } from '../common/options/config-yaml.js';
import { loadOptions, type RawValue } from '../common/options/load.js';
import { optionKeys, optionSchema, type OptionKey } from '../common/options/schema.js';
import { runDaemon, type RunResult } from '../daemon/run.js';

/** What --help shows after the flag: the kind of value it takes. */
function helpValue(definition: OptionDefinition): string {
  switch (definition.type) {
    case 'integer':
      return definition.unit.toUpperCase().replace(/\s+/g, '-');
    case 'enum':
      return definition.values.join('|');
    case 'ip':
      return 'IP';
    case 'path':
      return 'PATH';
    default:
      return 'VALUE';
  }
}

/**
 * The flag of one option, from the schema. oclif is given no `default` and no `env`: the loader
 * applies defaults, environment variables and the config file itself, so it knows each value's
 * source and checks all three forms alike.
 */
function flagOf(key: OptionKey) {
  const definition: OptionDefinition = optionSchema[key];
  const deprecated = definition.deprecated ? ` Deprecated: ${definition.deprecated}.` : '';
  const description = `${describeValues(definition)} Environment: ${environmentVariable(key)}.`
    + `${definition.notInConfigFile ? '' : ` Config key: ${configKey(key)}.`}${deprecated}`;
  const common = { summary: definition.description, description, helpGroup: definition.group.toUpperCase() };
  return definition.type === 'boolean'
    ? Flags.boolean({ ...common, allowNo: true })
    : Flags.string({ ...common, helpValue: helpValue(definition) });
}

const optionFlags: Interfaces.FlagInput = Object.fromEntries(optionKeys.map((key) => [flagName(key), flagOf(key)]));

export default class Serve extends BaseCommand {
  static override summary = 'Run a database node: open the database and serve the HTTP API until stopped.';

  static override description = [
    'Takes the database lock, recovers the log, then listens for HTTP. Every option is a flag, an SVC_* environment',
    'variable and a PascalCase key of the YAML file given with --config; a flag wins over the environment, which',
    'wins over the file. Options are checked once at start: a bad value stops the start with exit code 2 and names',
    'the option. Logs go to stdout: JSON lines, or on a terminal one readable line per event (--log-format);',
    'the one "listening" line of a start carries the bound address, port and protocol.',
    'SIGINT, SIGTERM or POST /admin/shutdown stops the node cleanly (in-flight requests finish, the log is flushed,',
    'the lock released) and exits 0; a second signal exits at once. SIGHUP or POST /admin/reloadconfig reloads the',
    'certificates of --cert-file, --cert-private-key-file and --trusted-root-certificates-path without a restart.',
    'The operator\'s web console is served at /web (a browser opening / is sent there); it signs in with the',
    'same users and works through the HTTP API with their rights.',
    'Exit codes: man svcdb-serve; every error code: man svcdb-errors.',
  ].join(' ');

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --db /var/lib/svcdb/db --http-port 2113',
    '<%= config.bin %> <%= command.id %> --config /etc/svcdb/svcdb.yaml --log-level debug',
    'SVC_HTTP_PORT=0 <%= config.bin %> <%= command.id %> --db /tmp/svcdb-test/db',
  ];

  static override flags: Interfaces.FlagInput = {
    ...optionFlags,
    // Not an option of the node: it changes what the command does, so it is not in the schema.
    'print-config': Flags.boolean({
      summary: 'Print the effective configuration (flags, SVC_* variables, --config file and defaults applied) as a config file, and exit 0 without opening the database.',
      helpGroup: 'APPLICATION',
    }),
  };

  async run(): Promise<RunResult | undefined> {
    const { flags } = await this.parse(Serve);
    const given: Partial<Record<OptionKey, RawValue>> = {};
    for (const key of optionKeys) {
      const value = (flags as Record<string, RawValue | undefined>)[flagName(key)];
      if (value !== undefined) given[key] = value;
    }
    const options = loadOptions({ flags: given, env: process.env, cwd: process.cwd() });
    if (flags['print-config']) {
      process.stdout.write(effectiveConfig(options));
      return undefined;
    }
    // A hook of the redaction crash tests, read here because nothing below the commands reads the environment.
    return runDaemon(options, this.config.version, { killAfterRedactionStep: process.env.SVC_TEST_REDACT_KILL_AFTER });
  }
}
