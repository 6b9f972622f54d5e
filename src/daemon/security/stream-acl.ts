/**
 * Stream access decided by ACLs: the right's roles from the stream's `$acl`, else from the
 * defaults (`$settings`, then built in). A principal passes when one of the roles is its login
 * name, one of its groups, or `$all`; `$admins` pass everywhere. Anonymous callers reach this
 * only when anonymous stream access is enabled, and then pass only where `$all` is listed.
 */
import { Errors } from '../../common/errors.js';
import type { StreamAcl, StreamMetadata } from '../../storage/streams/stream-metadata.js';
import type { Principal, StreamAccess, StreamOperation } from '../services/stream-access.js';
import { ALL_USERS, type DefaultAclSource } from './default-acls.js';
import { ADMINS_GROUP } from './user-record.js';

const ACL_KEY: Record<StreamOperation, keyof StreamAcl> = {
  read: '$r', write: '$w', delete: '$d', metadataRead: '$mr', metadataWrite: '$mw',
};

const VERB: Record<StreamOperation, string> = {
  read: 'read', write: 'write to', delete: 'delete', metadataRead: 'read the metadata of', metadataWrite: 'write the metadata of',
};

export function isAdmin(principal: Principal | undefined): boolean {
  return principal !== undefined && principal.groups.includes(ADMINS_GROUP);
}

function rolesOf(value: string | string[]): readonly string[] {
  return typeof value === 'string' ? [value] : value;
}

export function permits(roles: readonly string[], principal: Principal | undefined): boolean {
  for (const role of roles) {
    if (role === ALL_USERS) return true;
    if (principal !== undefined && (role === principal.name || principal.groups.includes(role))) return true;
  }
  return false;
}

export class AclAccess implements StreamAccess {
  constructor(
    private readonly metadataOf: (streamName: string) => StreamMetadata,
    private readonly defaults: DefaultAclSource,
  ) {}

  check(principal: Principal | undefined, operation: StreamOperation, streamName: string): void {
    if (isAdmin(principal)) return;
    const roles = this.rolesFor(operation, streamName);
    if (permits(roles, principal)) return;
    const what = `${VERB[operation]} stream ${streamName}`;
    if (principal === undefined) throw Errors.authRequired.create(what);
    throw Errors.accessDenied.create(`user ${principal.name}`, what, roles.length > 0 ? roles.join(', ') : ADMINS_GROUP);
  }

  private rolesFor(operation: StreamOperation, streamName: string): readonly string[] {
    const key = ACL_KEY[operation];
    const own = this.metadataOf(streamName).acl?.[key];
    if (own !== undefined) return rolesOf(own);
    const defaults = this.defaults.get();
    return rolesOf((streamName.startsWith('$') ? defaults.system : defaults.user)[key] ?? ADMINS_GROUP);
  }
}
