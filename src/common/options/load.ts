/**
 * Turns what an operator wrote (flags, SVC_* environment variables, a YAML --config file) into
 * the node's options: flag over environment over file over default, every value checked once,
 * the result frozen. Any mistake stops the start with a coded error that names the option in
 * the form the operator used and says how to fix it. This module reads no process state: the
 * command passes the environment and working directory in.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { Errors } from '../errors.js';
import { closest } from '../nearest-name.js';
import { checkDataDirectories, defaultIndexDirectory } from './data-directories.js';
import {
  configKey, environmentVariable, flagName, type OptionDefinition, type OptionSource,
} from './definition.js';
import { optionKeys, optionSchema, type NodeOptions, type OptionKey } from './schema.js';
import { readSecretFile } from './secret-file.js';

export type RawValue = string | number | boolean;

export interface OptionInputs {
  /** Flags given on the command line, by option key; absent keys were not given. */
  flags: Partial<Record<OptionKey, RawValue | undefined>>;
  /** The process environment (only SVC_* variables are read). */
  env: Readonly<Record<string, string | undefined>>;
  /** Relative paths are resolved against it. */
  cwd: string;
}

export interface OptionWarning {
  option: string;
  message: string;
}

export interface LoadedOptions {
  readonly values: NodeOptions;
  readonly sources: Readonly<Record<OptionKey, OptionSource>>;
  /** Things the operator should fix that do not stop the start (deprecated options, unknown SVC_* variables). */
  readonly warnings: readonly OptionWarning[];
}

interface Candidate {
  value: RawValue;
  source: OptionSource;
  /** How the operator wrote it, for messages: `--http-port`, `SVC_HTTP_PORT`, `HttpPort in /etc/svcdb.yaml`. */
  origin: string;
}

const ENVIRONMENT_PREFIX = 'SVC_';

export function loadOptions(inputs: OptionInputs): LoadedOptions {
  const warnings: OptionWarning[] = [];
  const fromEnvironment = readEnvironment(inputs.env, warnings);
  const configPath = inputs.flags.config ?? fromEnvironment.get('config')?.value;
  const fromFile = configPath === undefined || configPath === ''
    ? new Map<OptionKey, Candidate>()
    : readConfigFile(path.resolve(inputs.cwd, String(configPath)));

  const values: Record<string, unknown> = {};
  const sources = {} as Record<OptionKey, OptionSource>;
  for (const key of optionKeys) {
    const flag = inputs.flags[key];
    const candidate: Candidate | undefined = flag !== undefined
      ? { value: flag, source: 'flag', origin: `--${flagName(key)}` }
      : fromEnvironment.get(key) ?? fromFile.get(key);
    const definition: OptionDefinition = optionSchema[key];
    sources[key] = candidate?.source ?? 'default';
    if (candidate === undefined) {
      values[key] = definition.type === 'string' || definition.type === 'path' || definition.type === 'ip'
        ? definition.derivedDefault ? undefined : definition.default
        : definition.default;
      continue;
    }
    values[key] = parseValue(key, definition, candidate);
    if (definition.deprecated) {
      warnings.push({ option: `--${flagName(key)}`, message: `${candidate.origin} is deprecated: ${definition.deprecated}` });
    }
  }
  resolvePaths(values, inputs.cwd);
  readPasswordFiles(values, sources);
  const options = values as unknown as NodeOptions;
  checkCombinations(options);
  checkDataDirectories(options);
  return Object.freeze({ values: Object.freeze(options), sources: Object.freeze(sources), warnings: Object.freeze(warnings) });
}

/** SVC_* variables that name an option; any other SVC_* variable is reported as a warning. */
function readEnvironment(env: OptionInputs['env'], warnings: OptionWarning[]): Map<OptionKey, Candidate> {
  const byVariable = new Map(optionKeys.map((key) => [environmentVariable(key), key]));
  const found = new Map<OptionKey, Candidate>();
  for (const [variable, value] of Object.entries(env)) {
    if (!variable.startsWith(ENVIRONMENT_PREFIX) || value === undefined) continue;
    const key = byVariable.get(variable);
    if (key === undefined) {
      // Other svcdb commands have SVC_* variables of their own, so an unknown one is not fatal here.
      const near = closest(variable, [...byVariable.keys()]);
      warnings.push({ option: variable, message: `${variable} is not an option of svcdb serve${near ? `; did you mean ${near}?` : ''}` });
      continue;
    }
    found.set(key, { value, source: 'environment', origin: variable });
  }
  return found;
}

function readConfigFile(file: string): Map<OptionKey, Candidate> {
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw Errors.optionConfigFile.create(file, code === 'ENOENT' ? 'the file does not exist' : `it cannot be read (${code})`);
  }
  const document = parseDocument(content, { prettyErrors: false });
  if (document.errors.length > 0) {
    const [first] = document.errors;
    throw Errors.optionConfigFile.create(file, `it is not valid YAML: ${first.message.split('\n')[0]}`);
  }
  const parsed: unknown = document.toJS();
  if (parsed === null || parsed === undefined) return new Map();
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw Errors.optionConfigFile.create(file, 'it must be a mapping of option names to values (HttpPort: 2113)');
  }
  const byConfigKey = new Map(optionKeys.map((key) => [configKey(key), key]));
  const found = new Map<OptionKey, Candidate>();
  for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
    const key = byConfigKey.get(name);
    if (key === undefined || optionSchema[key].notInConfigFile) {
      const known = [...byConfigKey.keys()].filter((candidate) => !optionSchema[byConfigKey.get(candidate)!].notInConfigFile);
      const near = closest(name, known);
      const fix = key !== undefined
        ? `${name} can only be given as --${flagName(key)} or ${environmentVariable(key)}`
        : near ? `did you mean ${near}?` : 'svcdb serve --help lists the options; their config keys are PascalCase (HttpPort)';
      throw Errors.optionUnknown.create(name, file, fix);
    }
    const origin = `${name} in ${file}`;
    if (value === null || typeof value === 'object') {
      throw Errors.optionInvalid.create(`--${flagName(key)}`, `${origin} must be a single value, not ${value === null ? 'empty' : 'a list or mapping'}`);
    }
    found.set(key, { value: value as RawValue, source: 'file', origin });
  }
  return found;
}

function parseValue(key: OptionKey, definition: OptionDefinition, candidate: Candidate): unknown {
  const option = `--${flagName(key)}`;
  const invalid = (why: string) =>
    Errors.optionInvalid.create(option, `${candidate.origin}${candidate.source === 'flag' ? '' : ` (${show(candidate.value)})`} ${why}`);
  const { value } = candidate;
  switch (definition.type) {
    case 'integer': {
      const number = typeof value === 'number' ? value
        : typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : Number.NaN;
      if (!Number.isSafeInteger(number) || number < definition.min || number > definition.max) {
        throw invalid(`must be an integer from ${definition.min} to ${definition.max} (${definition.unit}), got ${show(value)}`);
      }
      const why = definition.check?.(number);
      if (why) throw invalid(`${why}, got ${number}`);
      return number;
    }
    case 'boolean': {
      if (typeof value === 'boolean') return value;
      const word = String(value).trim().toLowerCase();
      if (word === 'true' || word === '1') return true;
      if (word === 'false' || word === '0') return false;
      throw invalid(`must be true or false, got ${show(value)}`);
    }
    case 'enum': {
      const word = String(value).trim().toLowerCase();
      const match = definition.values.find((allowed) => allowed.toLowerCase() === word);
      if (match === undefined) throw invalid(`must be one of ${definition.values.join(', ')}, got ${show(value)}`);
      return match;
    }
    case 'ip': {
      const address = String(value).trim();
      if (net.isIP(address) === 0) throw invalid(`must be an IPv4 or IPv6 address, got ${show(value)}`);
      return address;
    }
    default: {
      const string = String(value);
      if (string.trim() === '' && !definition.optional) throw invalid('must not be empty');
      return string;
    }
  }
}

/** Paths become absolute; the index defaults to a directory named index next to the db directory. */
function resolvePaths(values: Record<string, unknown>, cwd: string): void {
  for (const key of optionKeys) {
    const definition = optionSchema[key];
    if (definition.type === 'path' && typeof values[key] === 'string' && values[key] !== '') {
      values[key] = path.resolve(cwd, values[key]);
    }
  }
  values.index ??= defaultIndexDirectory(values.db as string);
}

/** Each password option and the option that names a file holding it. */
const passwordFiles = [
  ['defaultAdminPassword', 'defaultAdminPasswordFile'],
  ['defaultOpsPassword', 'defaultOpsPasswordFile'],
  ['replicaPassword', 'replicaPasswordFile'],
] as const satisfies ReadonlyArray<readonly [OptionKey, OptionKey]>;

const precedence: Readonly<Record<OptionSource, number>> = { flag: 0, environment: 1, file: 2, default: 3 };

/**
 * A password given as a file replaces the password option, unless that option was given in a
 * form that takes precedence (a flag over SVC_*_FILE); both in the same form is a conflict.
 */
function readPasswordFiles(values: Record<string, unknown>, sources: Record<OptionKey, OptionSource>): void {
  for (const [key, fileKey] of passwordFiles) {
    const file = values[fileKey] as string;
    if (file === '' || precedence[sources[key]] < precedence[sources[fileKey]]) continue;
    if (sources[key] === sources[fileKey]) {
      throw Errors.optionConflict.create(`--${flagName(key)}`, `--${flagName(fileKey)}`,
        'give the password or the file that holds it, not both');
    }
    values[key] = readSecretFile(file, `--${flagName(fileKey)}`);
    sources[key] = sources[fileKey];
  }
}

const isLoopback = (address: string) => address === '::1' || (net.isIPv4(address) && address.startsWith('127.'));

/** Rules that involve more than one option. */
function checkCombinations(options: NodeOptions): void {
  if (options.index === options.db) {
    throw Errors.optionConflict.create('--index', '--db', 'the index must live in a different directory than the database; point --index elsewhere or leave it unset');
  }
  checkCertificateOptions(options);
  if (options.enableTrustedAuth && options.certFile === '') {
    throw Errors.optionRequires.create('--enable-trusted-auth', ['--cert-file', '--cert-private-key-file'],
      'a node that believes Svc-TrustedAuth headers must only be reached over TLS; add both to serve HTTPS, or leave trusted auth off');
  }
  if (!isLoopback(options.httpIp) && !options.insecure && options.certFile === '') {
    throw Errors.optionConflict.create('--http-ip', '--insecure',
      `${options.httpIp} is reachable from other machines and the node serves plain HTTP; bind 127.0.0.1, `
      + 'serve HTTPS with --cert-file and --cert-private-key-file, or accept plain HTTP with --insecure');
  }
}

/** A certificate needs its key and the other way round; trusted roots only check a certificate. */
function checkCertificateOptions(options: NodeOptions): void {
  if ((options.certFile === '') !== (options.certPrivateKeyFile === '')) {
    const [given, missing] = options.certFile === '' ? ['--cert-private-key-file', '--cert-file'] : ['--cert-file', '--cert-private-key-file'];
    throw Errors.optionConflict.create('--cert-file', '--cert-private-key-file',
      `${given} is set but ${missing} is not; give both to serve HTTPS, or neither to serve plain HTTP`);
  }
  if (options.trustedRootCertificatesPath !== '' && options.certFile === '') {
    throw Errors.optionConflict.create('--trusted-root-certificates-path', '--cert-file',
      'the trusted roots check the chain of the node certificate, and none is set; give --cert-file and --cert-private-key-file, or leave the roots unset');
  }
}

function show(value: RawValue): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
