/**
 * The node's security, assembled: users in the log, the credential cache in front of them, and
 * stream ACLs with their defaults. Caches are dropped as soon as a write that affects them
 * commits, before that write is acknowledged, so a change holds from the very next request.
 * One password hasher, on scrypt threads of its own, serves every hash and verification; `close`
 * ends its threads.
 */
import type { Logger } from '../../common/logger.js';
import { optionSchema } from '../../common/options/schema.js';
import type { CommittedWrite } from '../../storage/streams/write-types.js';
import { isMetadataStream, originalStreamOf } from '../../storage/streams/stream-metadata.js';
import type { StreamStorage } from '../services/streams.js';
import { UsersService } from '../services/users.js';
import { Authenticator } from './authenticator.js';
import { BoundedConcurrency } from './bounded-concurrency.js';
import { DEFAULT_FAILED_LOGIN_LIMITS, FailedLogins } from './failed-logins.js';
import { PasswordHasher } from './password-hash.js';
import { ScryptWorkers } from './scrypt-workers.js';
import { DefaultAclSource, SETTINGS_STREAM } from './default-acls.js';
import { ensureDefaultUsers, type DefaultPasswords } from './default-users.js';
import { AclAccess } from './stream-acl.js';
import { PASSWORD_NOTIFICATIONS_STREAM, USER_STREAM_PREFIX } from './user-record.js';
import { UserStore } from './user-store.js';

export interface Security {
  authenticator: Authenticator;
  access: AclAccess;
  users: UsersService;
  /** Settles once the warnings about users still on their default passwords are logged; it runs after start. */
  defaultPasswordsChecked: Promise<void>;
  /** Ends the hashing threads; hashing and verifying are refused after it. */
  close(): Promise<void>;
}

/** How much password hashing a node does at once, and when it slows a client address down. */
export interface SecurityLimits {
  /** Verifications of new credentials at once; also the number of hashing threads. */
  passwordVerificationsMax: number;
  /** Verifications waiting for a turn; more are refused. */
  passwordVerificationQueueMax: number;
  /** Failed logins from one address within a window (failed-logins.ts) before it is refused for a while; 0 never. */
  failedLoginsMax: number;
}

export const DEFAULT_SECURITY_LIMITS: SecurityLimits = Object.freeze({
  passwordVerificationsMax: optionSchema.passwordVerificationsMax.default,
  passwordVerificationQueueMax: optionSchema.passwordVerificationQueueMax.default,
  failedLoginsMax: optionSchema.failedLoginsMax.default,
});

/** `passwords` undefined: the default users are not made here (a replica's come with its leader's log). */
export async function startSecurity(
  storage: StreamStorage, passwords: DefaultPasswords | undefined, logger: Logger, limits: SecurityLimits = DEFAULT_SECURITY_LIMITS,
): Promise<Security> {
  const workers = new ScryptWorkers(limits.passwordVerificationsMax);
  try {
    return await assemble(storage, passwords, logger, limits, workers);
  } catch (error) {
    await workers.close();
    throw error;
  }
}

async function assemble(
  storage: StreamStorage, passwords: DefaultPasswords | undefined, logger: Logger, limits: SecurityLimits, workers: ScryptWorkers,
): Promise<Security> {
  const hasher = new PasswordHasher((job) => workers.run(job));
  const store = new UserStore(storage);
  const authenticator = new Authenticator(store, hasher, {
    verifications: new BoundedConcurrency(limits.passwordVerificationsMax, limits.passwordVerificationQueueMax),
    failedLogins: new FailedLogins({ ...DEFAULT_FAILED_LOGIN_LIMITS, failuresMax: limits.failedLoginsMax }),
  });
  const defaults = new DefaultAclSource(storage);
  storage.beforeAcknowledge((writes) => {
    for (const write of writes) {
      const changed = changedSecurityState(write);
      if (changed === 'credentials') authenticator.invalidate();
      else if (changed === 'defaultAcls') defaults.invalidate();
    }
  });
  const defaultPasswordsChecked = passwords === undefined ? Promise.resolve() : (await ensureDefaultUsers(store, hasher, passwords, logger)).warned;
  return {
    authenticator,
    access: new AclAccess((streamName) => storage.getStreamMetadata(streamName).metadata, defaults),
    users: new UsersService(store, hasher, async (login, password, source) => {
      await authenticator.authenticate(`Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`, undefined, source);
    }),
    defaultPasswordsChecked,
    // The check of default passwords still under way finishes before its workers go.
    close: async () => {
      await defaultPasswordsChecked;
      await workers.close();
    },
  };
}

function changedSecurityState({ streamName }: CommittedWrite): 'credentials' | 'defaultAcls' | undefined {
  // Most writes are to user streams: one character settles them.
  if (!streamName.startsWith('$')) return undefined;
  const stream = isMetadataStream(streamName) ? originalStreamOf(streamName) : streamName;
  if (stream.startsWith(USER_STREAM_PREFIX) || stream === PASSWORD_NOTIFICATIONS_STREAM) return 'credentials';
  if (stream === SETTINGS_STREAM) return 'defaultAcls';
  return undefined;
}
