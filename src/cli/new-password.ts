/**
 * The password of a user that `svcdb user add` or `passwd` sets: from --user-password-file, or
 * the first line of standard input (`pass show svcdb/alice | svcdb user passwd alice`), never from
 * the command line, where every user of the machine can read it.
 */
import { resolve } from 'node:path';
import { Flags } from '@oclif/core';
import { Errors } from '../common/errors.js';
import { readSecretFile } from '../common/options/secret-file.js';

export const newPasswordFlags = {
  'user-password-file': Flags.string({
    summary: 'File that holds the user\'s new password; the first line of standard input otherwise.',
    helpValue: 'FILE',
  }),
};

export async function newPassword(flags: { 'user-password-file'?: string }, commandLine: string): Promise<string> {
  const file = flags['user-password-file'];
  if (file !== undefined) return readSecretFile(resolve(file), '--user-password-file');
  if (process.stdin.isTTY) throw Errors.cliUsage.create('give the new password with --user-password-file FILE, or on standard input', commandLine);
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  const password = text.split(/\r?\n/)[0];
  if (password === '') throw Errors.cliUsage.create('the first line of standard input, the new password, is empty', commandLine);
  return password;
}
