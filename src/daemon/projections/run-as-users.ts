/**
 * The users projections run as, as the node stores them (`$user-<login>`). A projection runs with
 * the groups its user had when it was given that user; once the user loses one of them, is
 * disabled or is deleted, the projection must not keep them: `revoked` says why it may no longer
 * run, and `onChange` tells of every change of a user's record as soon as it is durable, before it
 * is acknowledged, so that a projection stops before the admin who made the change hears back.
 */
import type { Engine } from '../../storage/engine.js';
import { isMetadataStream, originalStreamOf } from '../../storage/streams/stream-metadata.js';
import { decodeUser, USER_STREAM_PREFIX, userStreamOf } from '../security/user-record.js';
import type { Principal } from '../services/stream-access.js';
import type { RunAs } from './projection-config.js';

export type RunAsUserStorage = Pick<Engine, 'readEvent' | 'beforeAcknowledge'>;

const HEAD = -1;

/** The login whose record a write changes: `$user-<login>`, or its metadata stream (a user's deletion). */
function loginChangedBy(streamName: string): string | undefined {
  // Most writes are to user streams: one character settles them.
  if (!streamName.startsWith('$')) return undefined;
  const stream = isMetadataStream(streamName) ? originalStreamOf(streamName) : streamName;
  return stream.startsWith(USER_STREAM_PREFIX) ? stream.slice(USER_STREAM_PREFIX.length) : undefined;
}

export class RunAsUsers {
  constructor(private readonly storage: RunAsUserStorage) {}

  /**
   * The run-as record of `principal`. `stored` says whether the node stores that user: a
   * principal a trusted proxy asserts (Svc-TrustedAuth) may have no record, and is then taken as
   * the proxy vouches for it.
   */
  runAsOf(principal: Principal): RunAs {
    return { name: principal.name, roles: [...principal.groups], stored: this.find(principal.name) !== undefined };
  }

  /** Why a projection may no longer run as `runAs`, or undefined while that user still has every group it was given. */
  revoked(runAs: RunAs): string | undefined {
    // Definitions written before `stored` was recorded were given stored users.
    if (runAs.stored === false) return undefined;
    const user = this.find(runAs.name);
    const advice = 'the projection ran with that user\'s rights; enable it again as a user who has the rights it needs';
    if (user === undefined) return `its user ${runAs.name} no longer exists: ${advice}`;
    if (user.disabled) return `its user ${runAs.name} is disabled: ${advice}`;
    const lost = runAs.roles.filter((role) => !user.groups.includes(role));
    if (lost.length > 0) return `its user ${runAs.name} no longer has ${lost.length === 1 ? 'group' : 'groups'} ${lost.join(', ')}: ${advice}`;
    return undefined;
  }

  /** Calls `listener` with the login of each user whose record a commit changed; returns the unsubscription. */
  onChange(listener: (login: string) => void): () => void {
    return this.storage.beforeAcknowledge((writes) => {
      for (const { streamName } of writes) {
        const login = loginChangedBy(streamName);
        if (login !== undefined) listener(login);
      }
    });
  }

  private find(login: string): { groups: string[]; disabled: boolean } | undefined {
    const read = this.storage.readEvent(userStreamOf(login), HEAD);
    if (read.status !== 'success' || read.event === undefined) return undefined;
    return decodeUser(read.event.data);
  }
}
