/**
 * The flags of a command that talks to a running node (cert-reload, scavenge, stream, status):
 * its URL, the credentials of a user and a private CA. The password comes from a file
 * (--password-file, SVC_PASSWORD_FILE) or SVC_PASSWORD; --password is accepted too, but a
 * command line is visible to every user of the machine.
 */
import { resolve } from 'node:path';
import { Flags } from '@oclif/core';
import { DEFAULT_PASSWORD } from '../common/default-password.js';
import { readSecretFile } from '../common/options/secret-file.js';
import { nodeUrls, oneNodeUrl, type NodeConnection } from '../common/node-connection.js';

/** Shown together under their own heading by --help. */
const helpGroup = 'NODE';

/**
 * No flag here excludes another flag of the command through oclif: oclif counts a value from the
 * environment as given, so an exported SVC_URL would refuse cert-reload --signal. A command checks
 * what was typed instead (typedFlags).
 */
export function nodeFlags() {
  return {
    url: Flags.string({
      summary: 'Base URL of the node, http:// or https://; or the URLs of a cluster\'s nodes, separated by commas.',
      description: 'With several URLs a command goes to the node that leads (it asks each for GET /info and names the one it uses on stderr);'
        + ' commands that act on the node that receives them (status, scavenge, cert-reload) take one URL.',
      default: 'http://127.0.0.1:2113',
      env: 'SVC_URL',
      helpValue: 'URL',
      helpGroup,
    }),
    username: Flags.string({
      char: 'U',
      summary: 'User of the requests (admin commands need an admin or ops user).',
      env: 'SVC_USERNAME',
      default: 'admin',
      helpGroup,
    }),
    // No displayed default: a password, even the well-known first one, is never shown by --help.
    password: Flags.string({
      summary: 'Password of --username; changeit unless set.',
      description: 'Prefer --password-file or SVC_PASSWORD: a command line is visible to every user of the machine.',
      env: 'SVC_PASSWORD',
      helpValue: 'PASSWORD',
      exclusive: ['password-file'],
      helpGroup,
    }),
    'password-file': Flags.string({
      summary: 'File that holds the password of --username (one trailing line break is ignored).',
      env: 'SVC_PASSWORD_FILE',
      helpValue: 'FILE',
      exclusive: ['password'],
      helpGroup,
    }),
    'ca-file': Flags.string({
      summary: 'PEM file of the CA that issued the node\'s certificate, trusted for this request besides the system\'s CAs.',
      env: 'SVC_CA_FILE',
      helpValue: 'FILE',
      helpGroup,
    }),
  };
}

/** The password of the request: from --password-file, --password (or their variables), or the first one. */
export function passwordOf(flags: { password?: string; 'password-file'?: string }): string {
  if (flags['password-file'] !== undefined) return readSecretFile(resolve(flags['password-file']), '--password-file');
  return flags.password ?? DEFAULT_PASSWORD;
}

export interface NodeFlagValues {
  url: string;
  username: string;
  password?: string;
  'password-file'?: string;
  'ca-file'?: string;
}

function connectionTo(url: string, flags: NodeFlagValues, timeoutSeconds: number): NodeConnection {
  return { url, username: flags.username, password: passwordOf(flags), caFile: flags['ca-file'], timeoutMs: timeoutSeconds * 1000 };
}

/**
 * The connection the flags describe, with each answer awaited at most `timeoutSeconds`. Several
 * URLs are the nodes of a cluster: the client connects to the one that leads.
 */
export function nodeConnection(flags: NodeFlagValues, timeoutSeconds: number): NodeConnection {
  const urls = nodeUrls(flags.url);
  return { ...connectionTo(urls[0], flags, timeoutSeconds), ...(urls.length > 1 && { clusterUrls: urls }) };
}

/** The connection to the one node `command` acts on; several URLs are refused with the coded error. */
export function oneNodeConnection(flags: NodeFlagValues, timeoutSeconds: number, command: string): NodeConnection {
  return connectionTo(oneNodeUrl(flags.url, command), flags, timeoutSeconds);
}

/** Which of `names` were typed on the command line (`--url X` or `--url=X`), not taken from the environment. */
export function typedFlags(argv: readonly string[], names: readonly string[]): string[] {
  const end = argv.indexOf('--');
  const words = end === -1 ? argv : argv.slice(0, end);
  return names.filter((name) => words.some((word) => word === `--${name}` || word.startsWith(`--${name}=`)));
}
