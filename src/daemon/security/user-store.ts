/**
 * Users kept in the log, as the wire note lays them out: `$user-<login>` holds the user's
 * `$UserCreated` and `$UserUpdated` events (its `$$` ACL leaves writes to `$admins`), `$users`
 * lists every login once per creation, and `$users-password-notifications` records each change
 * that must end cached credentials. The store writes as the system: no ACL applies to it.
 */
import { randomUUID } from 'node:crypto';
import { Errors } from '../../common/errors.js';
import { withMember } from '../../common/json-scan.js';
import { ExpectedVersion } from '../../storage/streams/stream-metadata.js';
import type { NewEvent } from '../../storage/streams/write-types.js';
import type { StreamStorage } from '../services/streams.js';
import {
  ADMINS_GROUP, PASSWORD_CHANGED, PASSWORD_NOTIFICATIONS_STREAM, USER_CREATED, USER_LISTED, USER_UPDATED, USERS_STREAM,
  decodeUser, encodeUser, userStreamOf, type UserRecord,
} from './user-record.js';

const HEAD = -1;
const LIST_PAGE = 500;
// Notifications only serve to invalidate caches; an hour of them is plenty.
const NOTIFICATIONS_MAX_AGE_SECONDS = 3600;
const USER_STREAM_ACL = { $w: ADMINS_GROUP, $d: ADMINS_GROUP, $mw: ADMINS_GROUP };
// A write that lost a race with another change of the same user is retried on the newer state.
const UPDATE_ATTEMPTS = 5;

export type UserStorage = Pick<StreamStorage, 'append' | 'deleteStream' | 'readEvent' | 'readStreamForward' | 'setStreamMetadata' | 'getStreamMetadata'>;

export interface FoundUser {
  user: UserRecord;
  /** The event number of the user's last event: the expected version of the next change. */
  version: number;
}

function newEvent(eventType: string, data: Buffer, isJson = true): NewEvent {
  return { eventId: randomUUID(), eventType, data, metadata: Buffer.alloc(0), isJson };
}

export class UserStore {
  constructor(private readonly storage: UserStorage) {}

  find(login: string): FoundUser | undefined {
    const read = this.storage.readEvent(userStreamOf(login), HEAD);
    if (read.status !== 'success' || read.event === undefined) return undefined;
    const user = decodeUser(read.event.data);
    return user && { user, version: read.event.eventNumber };
  }

  /** Every existing user, in the order they were first created. */
  list(): UserRecord[] {
    const logins = new Set<string>();
    for (let from = 0; ;) {
      const page = this.storage.readStreamForward(USERS_STREAM, from, LIST_PAGE);
      if (page.status !== 'success') break;
      for (const event of page.events) logins.add(event.data.toString('utf8'));
      if (page.isEndOfStream || page.events.length === 0) break;
      from = page.nextEventNumber;
    }
    return [...logins].flatMap((login) => this.find(login)?.user ?? []);
  }

  /** Writes a new user; the caller has checked that none exists (a soft-deleted one may). */
  async create(user: UserRecord): Promise<void> {
    const stream = userStreamOf(user.loginName);
    const { metadata } = this.storage.getStreamMetadata(stream);
    // Merged, not replaced: after a delete the metadata also holds the $tb that hides the old events.
    if (metadata.acl === undefined) {
      await this.storage.setStreamMetadata(stream, ExpectedVersion.any, Buffer.from(withMember(metadata.text, '$acl', JSON.stringify(USER_STREAM_ACL))));
    }
    await this.storage.append(stream, ExpectedVersion.noStream, [newEvent(USER_CREATED, encodeUser(user))]);
    await this.storage.append(USERS_STREAM, ExpectedVersion.any, [newEvent(USER_LISTED, Buffer.from(user.loginName), false)]);
  }

  /**
   * Applies `change` to the user's present state and writes the result; `notify` records the
   * change in the notifications stream (passwords, groups, disabling: what cached credentials hold).
   */
  async update(login: string, change: (user: UserRecord) => UserRecord | Promise<UserRecord>, notify: boolean): Promise<UserRecord> {
    for (let attempt = 1; ; attempt++) {
      const found = this.find(login);
      if (found === undefined) throw Errors.userNotFound.create(login);
      const updated = await change(found.user);
      try {
        await this.storage.append(userStreamOf(login), found.version, [newEvent(USER_UPDATED, encodeUser(updated))]);
      } catch (error) {
        if (Errors.wrongExpectedVersion.is(error) && attempt < UPDATE_ATTEMPTS) continue;
        throw error;
      }
      if (notify) await this.notify(login);
      return updated;
    }
  }

  /** Soft-deletes the user's stream: the login can be created again later. */
  async delete(login: string): Promise<void> {
    if (this.find(login) === undefined) throw Errors.userNotFound.create(login);
    await this.storage.deleteStream(userStreamOf(login), ExpectedVersion.any, false);
    await this.notify(login);
  }

  /** Whether users were ever set up here: `$users` exists once the first start created the defaults. */
  initialized(): boolean {
    return this.storage.readEvent(USERS_STREAM, HEAD).status !== 'notFound';
  }

  async prepareNotifications(): Promise<void> {
    await this.storage.setStreamMetadata(PASSWORD_NOTIFICATIONS_STREAM, ExpectedVersion.any, { $maxAge: NOTIFICATIONS_MAX_AGE_SECONDS });
  }

  private async notify(login: string): Promise<void> {
    await this.storage.append(PASSWORD_NOTIFICATIONS_STREAM, ExpectedVersion.any, [
      newEvent(PASSWORD_CHANGED, Buffer.from(JSON.stringify({ loginName: login }))),
    ]);
  }
}
