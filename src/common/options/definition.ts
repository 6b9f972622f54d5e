/**
 * How one node option is declared: its type, default, allowed values, help text and group. The
 * three forms an operator writes (flag, YAML key, environment variable) are derived from the
 * option's key, so they cannot drift apart: `httpPort` is `--http-port`, `HttpPort` and
 * `SVC_HTTP_PORT`.
 */

export const optionGroups = ['Application', 'Interface', 'Certificates', 'Authentication', 'Database', 'Logging', 'Projections', 'Scavenge', 'Replication', 'Cluster'] as const;
export type OptionGroup = (typeof optionGroups)[number];

interface Common {
  /** One or two sentences for --help, man pages and /info/options. */
  readonly description: string;
  readonly group: OptionGroup;
  /** Set for an option that is still accepted but does nothing; the text says what to do instead. */
  readonly deprecated?: string;
  /** The value is never shown (passwords, keys). */
  readonly sensitive?: boolean;
  /** Only a flag or an environment variable can set it (the config file's own path). */
  readonly notInConfigFile?: boolean;
}

export interface IntegerOption extends Common {
  readonly type: 'integer';
  readonly default: number;
  readonly min: number;
  readonly max: number;
  /** Unit of the value, for help text: `bytes`, `days`, `KiB`, `entries`. */
  readonly unit: string;
  /** A rule beyond the range; returns why the value is wrong, or undefined. */
  readonly check?: (value: number) => string | undefined;
}

export interface BooleanOption extends Common {
  readonly type: 'boolean';
  readonly default: boolean;
}

export interface EnumOption<V extends string = string> extends Common {
  readonly type: 'enum';
  readonly values: readonly V[];
  readonly default: V;
}

export interface StringOption extends Common {
  /** `path` is resolved against the working directory; `ip` must be an IPv4 or IPv6 address. */
  readonly type: 'string' | 'path' | 'ip';
  /** A literal default, or the text shown for a default derived from other options. */
  readonly default: string;
  /** The default depends on other options (see the loader); `default` is then only shown. */
  readonly derivedDefault?: boolean;
  /** The empty string is allowed and means "not set". */
  readonly optional?: boolean;
}

export type OptionDefinition = IntegerOption | BooleanOption | EnumOption | StringOption;

export type OptionValue<D> = D extends IntegerOption ? number
  : D extends BooleanOption ? boolean
  : D extends EnumOption<infer V> ? V
  : string;

/** Where a value came from, in precedence order. */
export type OptionSource = 'flag' | 'environment' | 'file' | 'default';

export const integer = (definition: Omit<IntegerOption, 'type'>): IntegerOption => ({ type: 'integer', ...definition });
export const boolean = (definition: Omit<BooleanOption, 'type'>): BooleanOption => ({ type: 'boolean', ...definition });
export const oneOf = <V extends string>(definition: Omit<EnumOption<V>, 'type'>): EnumOption<V> => ({ type: 'enum', ...definition });
export const text = (type: StringOption['type'], definition: Omit<StringOption, 'type'>): StringOption => ({ type, ...definition });

const words = (key: string): string[] => key.split(/(?=[A-Z])/).map((word) => word.toLowerCase());

/** `httpPort` → `http-port` (the flag without its dashes). */
export function flagName(key: string): string {
  return words(key).join('-');
}

/** `httpPort` → `HttpPort` (the key in a --config file, and the name /info/options shows). */
export function configKey(key: string): string {
  return words(key).map((word) => word[0].toUpperCase() + word.slice(1)).join('');
}

/** `httpPort` → `SVC_HTTP_PORT`. */
export function environmentVariable(key: string): string {
  return `SVC_${words(key).join('_').toUpperCase()}`;
}

/** The allowed values as /info/options and help text list them, or null for free values. */
export function possibleValues(definition: OptionDefinition): string[] | null {
  if (definition.type === 'enum') return [...definition.values];
  if (definition.type === 'boolean') return ['true', 'false'];
  return null;
}

/** The value as an operator would write it. */
export function formatValue(definition: OptionDefinition, value: unknown): string {
  if (definition.sensitive && value !== '') return '****';
  return String(value);
}

/** One line on the allowed values and the default, for help text and man pages. */
export function describeValues(definition: OptionDefinition): string {
  // A secret's default is never displayed, even a well-known one; its description says what applies.
  if (definition.sensitive) return 'The value is never shown.';
  switch (definition.type) {
    case 'integer':
      return `An integer from ${definition.min} to ${definition.max} (${definition.unit}); default ${definition.default}.`;
    case 'boolean':
      return `true or false; default ${definition.default}.`;
    case 'enum':
      return `One of ${definition.values.join(', ')}; default ${definition.default}.`;
    default:
      return definition.default === '' ? 'Not set by default.' : `Default ${definition.default}.`;
  }
}
