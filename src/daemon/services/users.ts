/**
 * The users API's rules: administrators manage users; every user may read itself; anyone who
 * gives a user's current password may change it. Passwords are hashed here and never leave.
 */
import { Errors } from '../../common/errors.js';
import { isAdmin } from '../security/stream-acl.js';
import type { PasswordHasher } from '../security/password-hash.js';
import { ADMINS_GROUP, checkLoginName, type UserRecord } from '../security/user-record.js';
import type { UserStore } from '../security/user-store.js';
import type { Principal } from './stream-access.js';
import type { NewUser, UserView } from '../../common/user-documents.js';

export type { NewUser, UserView } from '../../common/user-documents.js';

/** What PUT /users/{login} changes; a field left out keeps its value. */
export interface UserChange {
  fullName?: string;
  groups?: string[];
}

export type CreateOutcome = 'created' | 'unchanged';

/**
 * Checks a login and password as a login does (throttled per client address, a failure counted
 * as a failed login), throwing the coded 401 or 429 when they do not hold.
 */
export type CredentialsCheck = (login: string, password: string, source: string | undefined) => Promise<void>;

function viewOf(user: UserRecord): UserView {
  return { loginName: user.loginName, fullName: user.fullName, groups: [...user.groups], disabled: user.disabled };
}

function requireAdmin(principal: Principal | undefined, what: string): void {
  if (isAdmin(principal)) return;
  if (principal === undefined) throw Errors.authRequired.create(what);
  throw Errors.accessDenied.create(`user ${principal.name}`, what, ADMINS_GROUP);
}

function requireAdminOrSelf(principal: Principal | undefined, login: string, what: string): void {
  if (principal !== undefined && principal.name === login) return;
  requireAdmin(principal, what);
}

export class UsersService {
  constructor(private readonly store: UserStore, private readonly hasher: PasswordHasher, private readonly checkCredentials: CredentialsCheck) {}

  list(principal: Principal | undefined): UserView[] {
    requireAdmin(principal, 'list users');
    return this.store.list().map(viewOf);
  }

  get(principal: Principal | undefined, login: string): UserView {
    requireAdminOrSelf(principal, login, `read user ${login}`);
    return viewOf(this.existing(login));
  }

  current(principal: Principal | undefined): UserView {
    if (principal === undefined) throw Errors.authRequired.create('read the current user');
    return this.get(principal, principal.name);
  }

  /** Creating a user that exists with the same password changes nothing and succeeds. */
  async create(principal: Principal | undefined, user: NewUser): Promise<CreateOutcome> {
    requireAdmin(principal, 'create users');
    const login = checkLoginName(user.loginName);
    const found = this.store.find(login);
    if (found !== undefined) return this.createAgain(login, user.password, found.user);
    const password = await this.hasher.hash(user.password);
    try {
      await this.store.create({ ...user, loginName: login, disabled: false, password });
    } catch (error) {
      // Another request created the login between the check and the write (a client retrying a
      // create does this): answer as if that request had come first, not with the storage error.
      const winner = Errors.wrongExpectedVersion.is(error) ? this.store.find(login) : undefined;
      if (winner === undefined) throw error;
      return this.createAgain(login, user.password, winner.user);
    }
    return 'created';
  }

  async update(principal: Principal | undefined, login: string, change: UserChange): Promise<void> {
    requireAdmin(principal, `update user ${login}`);
    await this.store.update(login, (user) => ({ ...user, ...change }), true);
  }

  async delete(principal: Principal | undefined, login: string): Promise<void> {
    requireAdmin(principal, `delete user ${login}`);
    await this.store.delete(login);
  }

  async setDisabled(principal: Principal | undefined, login: string, disabled: boolean): Promise<void> {
    requireAdmin(principal, `${disabled ? 'disable' : 'enable'} user ${login}`);
    await this.store.update(login, (user) => ({ ...user, disabled }), true);
  }

  async resetPassword(principal: Principal | undefined, login: string, newPassword: string): Promise<void> {
    requireAdmin(principal, `reset the password of ${login}`);
    const password = await this.hasher.hash(newPassword);
    await this.store.update(login, (user) => ({ ...user, password }), true);
  }

  /**
   * Knowing the current password is already the user's right, so any caller who gives it may
   * change it, as in the reference. A caller who is not that user has it checked as a login
   * first, so that this is no way around the failed-login throttle to guess passwords.
   */
  async changePassword(
    principal: Principal | undefined, login: string, currentPassword: string, newPassword: string, source?: string,
  ): Promise<void> {
    if (principal?.name !== login) {
      // An unknown login is a wrong password too: the reply does not tell which logins exist.
      await this.checkCredentials(login, currentPassword, source).catch((error: unknown) => {
        throw Errors.authCredentialsInvalid.is(error) ? Errors.userPasswordWrong.create(login) : error;
      });
    }
    const password = await this.hasher.hash(newPassword);
    await this.store.update(login, async (user) => {
      if (!(await this.hasher.verify(currentPassword, user.password))) throw Errors.userPasswordWrong.create(login);
      return { ...user, password };
    }, true);
  }

  /** A create of a login that exists: the same password succeeds and changes nothing, another is a conflict. */
  private async createAgain(login: string, password: string, existing: UserRecord): Promise<CreateOutcome> {
    if (await this.hasher.verify(password, existing.password)) return 'unchanged';
    throw Errors.userConflict.create(login);
  }

  private existing(login: string): UserRecord {
    const found = this.store.find(login);
    if (found === undefined) throw Errors.userNotFound.create(login);
    return found.user;
  }
}
