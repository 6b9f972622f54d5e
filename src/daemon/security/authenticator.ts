/**
 * HTTP Basic credentials to a principal. A login is verified with scrypt once; after that the
 * cache answers, keyed by a SHA-256 of the whole header (never the password itself), so a busy
 * client pays one fast hash per request and no scrypt. A keep-alive connection sends the same
 * header with every request: the connection remembers the principal it last proved, and a request
 * with the very same header skips the hash too. It keeps that header string, which every request
 * on the connection carries anyway, only as long as the connection lives.
 * The cache is dropped whenever a user changes (password, groups, enabled flag, deletion), so a
 * change takes effect on the very next request.
 */
import { hash, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { Errors } from '../../common/errors.js';
import type { Principal } from '../services/stream-access.js';
import { hashPassword, verifyPassword, type PasswordHash } from './password-hash.js';
import type { UserStore } from './user-store.js';

const CACHED_CREDENTIALS_MAX = 10_000;
const MALFORMED = 'the Authorization header must be "Basic " followed by base64 of login:password';
const WRONG = 'the login name or password is wrong';

export interface Credentials {
  login: string;
  password: string;
}

/** Login and password from an `Authorization: Basic …` value; throws the coded 401 when malformed. */
export function parseBasic(header: string): Credentials {
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== 'basic') throw Errors.authCredentialsInvalid.create(MALFORMED);
  const decoded = Buffer.from(header.slice(space + 1).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw Errors.authCredentialsInvalid.create(MALFORMED);
  return { login: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The credentials a connection last proved, valid while no invalidation happened since. */
interface Remembered {
  header: string;
  principal: Principal;
  generation: number;
}

const REMEMBERED = Symbol('svcdb.rememberedCredentials');

/** An object that lives as long as a client's connection, such as its socket. */
type Connection = { [REMEMBERED]?: Remembered };

export class Authenticator {
  /** Header digest → principal. */
  private readonly cache = new LRUCache<string, Principal>({ max: CACHED_CREDENTIALS_MAX });
  /** Header digest → the verification under way for it. */
  private readonly verifying = new Map<string, Promise<Principal>>();
  /** Bumped by every invalidation, so a verification that raced one is not cached. */
  private generation = 0;
  private decoy: Promise<PasswordHash> | undefined;

  constructor(private readonly users: Pick<UserStore, 'find'>) {}

  /**
   * The principal for an `Authorization` header value: synchronous on a cache hit. With
   * `connection`, the principal is remembered there for the connection's next request.
   */
  authenticate(header: string, connection?: object): Principal | Promise<Principal> {
    const holder = connection as Connection | undefined;
    const remembered = holder?.[REMEMBERED];
    if (remembered !== undefined && remembered.generation === this.generation && remembered.header === header) return remembered.principal;
    const digest = hash('sha256', header, 'base64');
    const cached = this.cache.get(digest);
    if (cached !== undefined) {
      if (holder !== undefined) holder[REMEMBERED] = { header, principal: cached, generation: this.generation };
      return cached;
    }
    const { login, password } = parseBasic(header);
    // A client that opens many connections at once sends the same header on each: one scrypt serves them all.
    let verification = this.verifying.get(digest);
    if (verification === undefined) {
      verification = this.verify(login, password, digest).finally(() => this.verifying.delete(digest));
      this.verifying.set(digest, verification);
    }
    return verification;
  }

  /** Forgets every cached credential: the next request of each user is verified against the log. */
  invalidate(): void {
    this.cache.clear();
    this.generation++;
  }

  private async verify(login: string, password: string, digest: string): Promise<Principal> {
    const generation = this.generation;
    const found = this.users.find(login);
    if (found === undefined) {
      // Same work as for a real user, so response times do not tell which logins exist.
      this.decoy ??= hashPassword(randomBytes(16).toString('hex'));
      await verifyPassword(password, await this.decoy);
      throw Errors.authCredentialsInvalid.create(WRONG);
    }
    if (!(await verifyPassword(password, found.user.password))) throw Errors.authCredentialsInvalid.create(WRONG);
    if (found.user.disabled) throw Errors.authUserDisabled.create(login);
    const principal: Principal = Object.freeze({ name: login, groups: Object.freeze([...found.user.groups]) });
    if (generation === this.generation) this.cache.set(digest, principal);
    return principal;
  }
}
