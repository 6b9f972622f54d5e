/**
 * A user as stored: the JSON data of the `$UserCreated` / `$UserUpdated` events of
 * `$user-<login>`, the last of which is the user's present state. The password is kept only as a
 * salted hash; nothing here is ever sent to a client as is.
 */
import { Errors } from '../../common/errors.js';
import type { PasswordHash } from './password-hash.js';

export const USER_STREAM_PREFIX = '$user-';
export const USERS_STREAM = '$users';
export const PASSWORD_NOTIFICATIONS_STREAM = '$users-password-notifications';
export const USER_CREATED = '$UserCreated';
export const USER_UPDATED = '$UserUpdated';
export const USER_LISTED = '$User';
export const PASSWORD_CHANGED = '$PasswordChanged';

export const ADMINS_GROUP = '$admins';
export const OPS_GROUP = '$ops';

export interface UserRecord {
  loginName: string;
  fullName: string;
  groups: string[];
  disabled: boolean;
  password: PasswordHash;
}

/** What a user's event holds: the wire note's fields, `disabled` only when true. */
interface StoredUser {
  loginName: string;
  fullName: string;
  salt: string;
  hash: string;
  hashAlgorithm: string;
  groups: string[];
  disabled?: true;
}

export function userStreamOf(login: string): string {
  return USER_STREAM_PREFIX + login;
}

export function encodeUser(user: UserRecord): Buffer {
  const stored: StoredUser = {
    loginName: user.loginName,
    fullName: user.fullName,
    salt: user.password.salt,
    hash: user.password.hash,
    hashAlgorithm: user.password.algorithm,
    groups: user.groups,
  };
  if (user.disabled) stored.disabled = true;
  return Buffer.from(JSON.stringify(stored));
}

/** The user in an event's data, or undefined when it is not a user record (written by hand, say). */
export function decodeUser(data: Buffer): UserRecord | undefined {
  let stored: Partial<StoredUser>;
  try {
    stored = JSON.parse(data.toString('utf8')) as Partial<StoredUser>;
  } catch {
    return undefined;
  }
  const { loginName, fullName, salt, hash, hashAlgorithm, groups } = stored;
  if (typeof loginName !== 'string' || typeof salt !== 'string' || typeof hash !== 'string' || typeof hashAlgorithm !== 'string') return undefined;
  return {
    loginName,
    fullName: typeof fullName === 'string' ? fullName : '',
    groups: Array.isArray(groups) ? groups.filter((group): group is string => typeof group === 'string') : [],
    disabled: stored.disabled === true,
    password: { algorithm: hashAlgorithm, salt, hash },
  };
}

const LOGIN_NAME_MAX = 200;

/**
 * Login names travel in Basic credentials (no ':'), in URL paths (no '/', and not the dot
 * segments '.' and '..', which every URL resolver removes) and in stream names; a leading '$'
 * is kept for the API's own names such as `$current`.
 */
export function checkLoginName(login: unknown): string {
  if (typeof login !== 'string' || login.trim() === '') throw Errors.userInvalid.create('loginName must be a non-empty string');
  if (login.length > LOGIN_NAME_MAX) throw Errors.userInvalid.create(`loginName must be at most ${LOGIN_NAME_MAX} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[:/\u0000-\u001f\u007f]/.test(login)) throw Errors.userInvalid.create('loginName must not contain ":", "/" or control characters');
  if (login.startsWith('$')) throw Errors.userInvalid.create('loginName must not start with "$"');
  if (login === '.' || login === '..') throw Errors.userInvalid.create(`loginName must not be "${login}", which a URL path cannot address; choose another name`);
  return login;
}
