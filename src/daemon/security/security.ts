/**
 * The node's security, assembled: users in the log, the credential cache in front of them, and
 * stream ACLs with their defaults. Caches are dropped as soon as a write that affects them
 * commits, before that write is acknowledged, so a change holds from the very next request.
 */
import type { Logger } from '../../common/logger.js';
import type { CommittedWrite } from '../../storage/writer.js';
import { isMetadataStream, originalStreamOf } from '../../storage/stream-metadata.js';
import type { StreamStorage } from '../services/streams.js';
import { UsersService } from '../services/users.js';
import { Authenticator } from './authenticator.js';
import { DefaultAclSource, SETTINGS_STREAM } from './default-acls.js';
import { ensureDefaultUsers, type DefaultPasswords } from './default-users.js';
import { AclAccess } from './stream-acl.js';
import { PASSWORD_NOTIFICATIONS_STREAM, USER_STREAM_PREFIX } from './user-record.js';
import { UserStore } from './user-store.js';

export interface Security {
  authenticator: Authenticator;
  access: AclAccess;
  users: UsersService;
}

export async function startSecurity(storage: StreamStorage, passwords: DefaultPasswords, logger: Logger): Promise<Security> {
  const store = new UserStore(storage);
  const authenticator = new Authenticator(store);
  const defaults = new DefaultAclSource(storage);
  storage.onCommitted((writes) => {
    for (const write of writes) {
      const changed = changedSecurityState(write);
      if (changed === 'credentials') authenticator.invalidate();
      else if (changed === 'defaultAcls') defaults.invalidate();
    }
  });
  await ensureDefaultUsers(store, passwords, logger);
  return {
    authenticator,
    access: new AclAccess((streamName) => storage.getStreamMetadata(streamName).metadata, defaults),
    users: new UsersService(store),
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
