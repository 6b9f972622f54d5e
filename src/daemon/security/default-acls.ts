/**
 * The ACLs a stream gets when its metadata sets none: the last event of `$settings`
 * (`{"$userStreamAcl":{…},"$systemStreamAcl":{…}}`), and below it the built-in defaults (user
 * streams open to every user, `$`-streams to `$admins`). Read once and kept until `$settings`
 * changes.
 */
import { isJsonEvent } from '../../storage/log/record.js';
import type { StreamAcl } from '../../storage/streams/stream-metadata.js';
import type { StreamStorage } from '../services/streams.js';
import { ADMINS_GROUP } from './user-record.js';

export const SETTINGS_STREAM = '$settings';
export const ALL_USERS = '$all';

export interface DefaultAcls {
  user: StreamAcl;
  system: StreamAcl;
}

export const BUILT_IN_ACLS: DefaultAcls = Object.freeze({
  user: Object.freeze({ $r: ALL_USERS, $w: ALL_USERS, $d: ALL_USERS, $mr: ALL_USERS, $mw: ALL_USERS }),
  system: Object.freeze({ $r: ADMINS_GROUP, $w: ADMINS_GROUP, $d: ADMINS_GROUP, $mr: ADMINS_GROUP, $mw: ADMINS_GROUP }),
});

const ACL_KEYS = ['$r', '$w', '$d', '$mr', '$mw'] as const;

/** The ACL keys of `value` that hold a role or a list of roles; anything else is ignored. */
function aclOf(value: unknown): StreamAcl {
  const acl: StreamAcl = {};
  if (typeof value !== 'object' || value === null) return acl;
  for (const key of ACL_KEYS) {
    const roles = (value as Record<string, unknown>)[key];
    if (typeof roles === 'string' || (Array.isArray(roles) && roles.every((role) => typeof role === 'string'))) acl[key] = roles;
  }
  return acl;
}

export function parseSettings(data: Buffer): DefaultAcls {
  let settings: Record<string, unknown>;
  try {
    settings = JSON.parse(data.toString('utf8')) as Record<string, unknown>;
  } catch {
    return BUILT_IN_ACLS;
  }
  if (typeof settings !== 'object' || settings === null) return BUILT_IN_ACLS;
  return {
    user: { ...BUILT_IN_ACLS.user, ...aclOf(settings.$userStreamAcl) },
    system: { ...BUILT_IN_ACLS.system, ...aclOf(settings.$systemStreamAcl) },
  };
}

export class DefaultAclSource {
  private current: DefaultAcls | undefined;

  constructor(private readonly storage: Pick<StreamStorage, 'readEvent'>) {}

  get(): DefaultAcls {
    this.current ??= this.load();
    return this.current;
  }

  /** `$settings` (or its metadata) changed: read it again on next use. */
  invalidate(): void {
    this.current = undefined;
  }

  private load(): DefaultAcls {
    const read = this.storage.readEvent(SETTINGS_STREAM, -1);
    return read.status === 'success' && read.event !== undefined && isJsonEvent(read.event) ? parseSettings(read.event.data) : BUILT_IN_ACLS;
  }
}
