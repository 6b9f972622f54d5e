/**
 * Options written as the YAML file --config reads (PascalCase keys): the effective configuration
 * that `svcdb serve --print-config` prints, and the commented sample configuration generated from
 * the schema (packaging/svcdb.yaml). Both load back through the same loader.
 */
import { stringify } from 'yaml';
import {
  configKey, describeValues, environmentVariable, flagName, optionGroups, type OptionDefinition, type OptionSource,
} from './definition.js';
import type { LoadedOptions } from './load.js';
import { optionKeys, optionSchema, type OptionKey } from './schema.js';

const LINE_WIDTH = 100;

/** Options a config file can hold, in schema order. */
const fileKeys = optionKeys.filter((key) => !optionSchema[key].notInConfigFile);

/** `HttpPort: 2113`, the value quoted only where YAML needs it (a path with `: `, an empty string). */
function yamlLine(key: OptionKey, value: unknown): string {
  return `${configKey(key)}: ${stringify(value, { lineWidth: 0 }).trimEnd()}`;
}

/** Text as `# ` comment lines of at most LINE_WIDTH characters. */
function comment(text: string): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line.length + 1 + word.length > LINE_WIDTH && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines;
}

const originOf = (key: OptionKey, source: OptionSource): string => ({
  flag: `--${flagName(key)}`, environment: environmentVariable(key), file: 'the config file', default: 'default',
})[source];

/**
 * The options in force after flags, environment, config file and defaults, one line each with
 * where the value came from. Secrets are left out (commented), so the output can be shared;
 * their files (--default-admin-password-file) are printed and load back to the same secret.
 */
export function effectiveConfig(loaded: LoadedOptions): string {
  const lines = ['# The effective configuration of svcdb serve; `svcdb serve --config FILE` reads it back.'];
  for (const key of fileKeys) {
    const definition: OptionDefinition = optionSchema[key];
    const source = loaded.sources[key];
    if (definition.sensitive) {
      lines.push(`# ${configKey(key)}: not shown (from ${originOf(key, source)})`);
      continue;
    }
    lines.push(`${yamlLine(key, loaded.values[key])}  # ${originOf(key, source)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** What a packaged node sets that differs from a developer's defaults: absolute data paths. */
export const PACKAGED_VALUES: Partial<Record<OptionKey, string>> = Object.freeze({
  db: '/var/lib/svcdb/db',
  index: '/var/lib/svcdb/index',
});

/** One option in the sample: its description, its values and forms, then the line itself. */
function sampleEntry(key: OptionKey): string[] {
  const definition: OptionDefinition = optionSchema[key];
  const deprecated = definition.deprecated ? ` Deprecated: ${definition.deprecated}.` : '';
  const lines = [
    ...comment(`${definition.description}${deprecated}`),
    ...comment(`${describeValues(definition)} Flag --${flagName(key)}, environment ${environmentVariable(key)}.`),
  ];
  const packaged = PACKAGED_VALUES[key];
  if (packaged !== undefined) lines.push(yamlLine(key, packaged));
  // A secret has no default worth showing; the option is named, its value left for the operator.
  else if (definition.sensitive) lines.push(`#${configKey(key)}:`);
  else lines.push(`#${yamlLine(key, definition.default)}`);
  return lines;
}

/** The sample configuration file: every option a config file takes, by group, defaults commented out. */
export function sampleConfig(): string {
  const sections = [[
    ...comment('svcdb node configuration, read by `svcdb serve --config /etc/svcdb/svcdb.yaml` (packaging/svcdb.service).'),
    ...comment('Generated from the option schema by `npm run sample-config`: change the schema, not this file.'),
    ...comment('Every option is also a flag (--http-port) and an environment variable (SVC_HTTP_PORT); a flag wins over the '
      + 'environment, which wins over this file. A commented line shows the default; `svcdb serve --print-config` shows '
      + 'the values in force.'),
  ].join('\n')];
  for (const group of optionGroups) {
    const keys = fileKeys.filter((key) => optionSchema[key].group === group);
    if (keys.length === 0) continue;
    sections.push([`# ---- ${group} ----`, ...keys.map((key) => sampleEntry(key).join('\n'))].join('\n\n'));
  }
  return `${sections.join('\n\n')}\n`;
}
