/**
 * The users a new database starts with: `admin` in `$admins` and `ops` in `$ops`, with the
 * passwords the options give (changeit unless set). They are created on the first start only;
 * every start warns about a default user whose password is still changeit.
 */
import { DEFAULT_PASSWORD } from '../../common/default-password.js';
import type { Logger } from '../../common/logger.js';
import type { PasswordHasher } from './password-hash.js';
import { ADMINS_GROUP, OPS_GROUP } from './user-record.js';
import type { UserStore } from './user-store.js';

export interface DefaultPasswords {
  admin: string;
  ops: string;
}

const defaultUsers = [
  { loginName: 'admin', fullName: 'svcdb Administrator', groups: [ADMINS_GROUP], password: (passwords: DefaultPasswords) => passwords.admin },
  { loginName: 'ops', fullName: 'svcdb Operations', groups: [OPS_GROUP], password: (passwords: DefaultPasswords) => passwords.ops },
];

/**
 * Creates the default users in a new database; resolves with the check for default passwords,
 * which runs on after the start (the caller waits for it before closing the hasher).
 */
export async function ensureDefaultUsers(store: UserStore, hasher: PasswordHasher, passwords: DefaultPasswords, logger: Logger): Promise<{ warned: Promise<void> }> {
  if (!store.initialized()) {
    await store.prepareNotifications();
    for (const user of defaultUsers) {
      const password = await hasher.hash(user.password(passwords));
      await store.create({ loginName: user.loginName, fullName: user.fullName, groups: user.groups, disabled: false, password });
    }
    logger.info({ users: defaultUsers.map((user) => user.loginName) }, 'created the default users');
  }
  // Two password hashes take a good part of a second: the start (a cluster leader's, during a
  // failover) does not wait for the warning.
  return { warned: warnOfDefaultPasswords(store, hasher, logger).catch(() => undefined) };
}

async function warnOfDefaultPasswords(store: UserStore, hasher: PasswordHasher, logger: Logger): Promise<void> {
  for (const { loginName } of defaultUsers) {
    const found = store.find(loginName);
    if (found !== undefined && !found.user.disabled && await hasher.verify(DEFAULT_PASSWORD, found.user.password)) {
      logger.warn({ user: loginName },
        `user ${loginName} still has the default password; change it (POST /users/${loginName}/command/change-password) or disable the user`);
    }
  }
}
