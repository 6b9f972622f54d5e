/**
 * Events the node reads to decide who may do what: default ACLs (`$settings`), users and their
 * passwords (`$user-{login}`, `$users`, `$users-password-notifications`) and projection
 * definitions (`$ProjectionUpdated`, which name the user a projection runs as, and the
 * projections registry). Blanking one would not hide data but change rights, or leave the node
 * reading a definition it cannot parse, so redaction refuses them as it refuses metadata.
 */
import { EventTypes, REGISTRY_STREAM } from '../projections/streams.js';
import { SETTINGS_STREAM } from '../security/default-acls.js';
import { PASSWORD_NOTIFICATIONS_STREAM, USER_STREAM_PREFIX, USERS_STREAM } from '../security/user-record.js';

const PROJECTIONS_STREAM_PREFIX = '$projections-';

/** What the node reads an event of `stream` of type `eventType` for, or undefined when it reads it for no right. */
export function interpretedAs(stream: string, eventType: string): string | undefined {
  if (stream === SETTINGS_STREAM) return 'the default access control lists';
  if (stream === USERS_STREAM || stream === PASSWORD_NOTIFICATIONS_STREAM || stream.startsWith(USER_STREAM_PREFIX)) return 'a user account';
  if (stream === REGISTRY_STREAM) return 'the list of projections';
  if (stream.startsWith(PROJECTIONS_STREAM_PREFIX) && eventType === EventTypes.updated) return 'a projection definition (with the user it runs as)';
  return undefined;
}
