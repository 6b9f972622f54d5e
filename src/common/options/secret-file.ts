/**
 * A password read from a file (`--password-file`, `--default-admin-password-file`), so that it
 * need not appear on a command line, where every user of the machine can read it in the process
 * list. The file holds the password alone; one trailing line break is not part of it.
 */
import { readFileSync } from 'node:fs';
import { Errors, type SvcError } from '../errors.js';

/** The password in `file`; an unreadable or empty file is an invalid value of `option`. */
export function readSecretFile(file: string, option: string): string {
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw invalid(option, `${option} names ${file}, which ${code === 'ENOENT' ? 'does not exist' : `cannot be read (${code})`}`);
  }
  const secret = content.replace(/\r?\n$/, '');
  if (secret === '') throw invalid(option, `${option} names ${file}, which is empty; write the password in it`);
  return secret;
}

function invalid(option: string, why: string): SvcError {
  return Errors.optionInvalid.create(option, why);
}
