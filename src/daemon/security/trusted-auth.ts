/**
 * `Svc-TrustedAuth: login` or `login;group1,group2`: a principal asserted by a trusted proxy in
 * front of the node, which authenticated the client itself. The node checks no password and
 * reads no user; it believes the header, so it honours it only with --enable-trusted-auth, which
 * needs TLS, and the proxy must strip the header from what clients send.
 */
import { Errors } from '../../common/errors.js';
import type { Principal } from '../services/stream-access.js';
import { checkLoginName } from './user-record.js';

export const TRUSTED_AUTH_HEADER = 'svc-trustedauth';

const FORM = 'Svc-TrustedAuth must be "login" or "login;group1,group2"';

/** The principal a trusted-auth header names; throws the coded 401 when it is malformed. */
export function parseTrustedAuth(header: string): Principal {
  const separator = header.indexOf(';');
  const login = (separator < 0 ? header : header.slice(0, separator)).trim();
  const groups = separator < 0 ? [] : header.slice(separator + 1).split(',').map((group) => group.trim());
  try {
    checkLoginName(login);
  } catch (error) {
    throw Errors.authCredentialsInvalid.create(`${FORM}: ${(error as Error).message}`);
  }
  if (groups.some((group) => group === '')) throw Errors.authCredentialsInvalid.create(`${FORM}: a group name is empty`);
  return Object.freeze({ name: login, groups: Object.freeze(groups) });
}
