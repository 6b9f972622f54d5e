/**
 * HTTP Basic credentials to a principal. A login is verified with scrypt once; after that the
 * cache answers, keyed by a SHA-256 of the whole header (never the password itself), so a busy
 * client pays one fast hash per request and no scrypt. A keep-alive connection sends the same
 * header with every request: the connection remembers the principal it last proved, and a request
 * with the very same header skips the hash too. It keeps that header string, which every request
 * on the connection carries anyway, only as long as the connection lives.
 * The cache is dropped whenever a user changes (password, groups, enabled flag, deletion), so a
 * change takes effect on the very next request.
 *
 * Credentials the cache does not know are verified a few at a time with a bounded queue
 * (bounded-concurrency.ts): beyond it a request is refused at once with a coded 503, and cached
 * credentials never wait behind it. A client address with too many failures (failed-logins.ts) is
 * refused with a coded 429 before anything is hashed, whatever credentials it sends, cached or
 * not: otherwise a refused source could go on testing guesses against the cache. Only a
 * connection that already proved the very same header goes on.
 */
import { hash, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { Errors } from '../../common/errors.js';
import type { Principal } from '../services/stream-access.js';
import { BoundedConcurrency, type ConcurrencyStats } from './bounded-concurrency.js';
import { FailedLogins, type FailedLoginStats } from './failed-logins.js';
import type { PasswordHash, PasswordHasher } from './password-hash.js';
import type { UserStore } from './user-store.js';

const CACHED_CREDENTIALS_MAX = 10_000;
const MALFORMED = 'the Authorization header must be "Basic " followed by base64 of login:password';
const WRONG = 'the login name or password is wrong';
/** What a client refused for a full verification queue is told to wait: about the time the queue takes to move. */
const BUSY_RETRY_AFTER_SECONDS = 1;

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

/** The bounds of verification: how many at once and waiting, and when a source is slowed down. */
export interface AuthenticatorGuards {
  verifications: BoundedConcurrency;
  failedLogins: FailedLogins;
}

export interface AuthenticationStats {
  verifications: ConcurrencyStats;
  failedLogins: FailedLoginStats;
  /** Requests refused because their address was in a backoff. */
  throttled: number;
}

export class Authenticator {
  /** Header digest → principal. */
  private readonly cache = new LRUCache<string, Principal>({ max: CACHED_CREDENTIALS_MAX });
  /** Header digest → the verification under way for it. */
  private readonly verifying = new Map<string, Promise<Principal>>();
  /** Bumped by every invalidation, so a verification that raced one is not cached. */
  private generation = 0;
  private decoy: Promise<PasswordHash> | undefined;
  private throttled = 0;

  constructor(
    private readonly users: Pick<UserStore, 'find'>,
    private readonly hasher: PasswordHasher,
    private readonly guards: AuthenticatorGuards,
  ) {}

  /**
   * The principal for an `Authorization` header value: synchronous on a cache hit. With
   * `connection`, the principal is remembered there for the connection's next request; with
   * `source` (the client's address), failures are counted against it and it may be refused.
   */
  authenticate(header: string, connection?: object, source?: string): Principal | Promise<Principal> {
    const holder = connection as Connection | undefined;
    const remembered = holder?.[REMEMBERED];
    if (remembered !== undefined && remembered.generation === this.generation && remembered.header === header) return remembered.principal;
    if (source !== undefined) this.refuseThrottled(source);
    const digest = hash('sha256', header, 'base64');
    const cached = this.cache.get(digest);
    if (cached !== undefined) {
      if (holder !== undefined) holder[REMEMBERED] = { header, principal: cached, generation: this.generation };
      return cached;
    }
    const verification = this.verification(header, digest);
    return source === undefined ? verification : this.countOutcome(verification, source);
  }

  /** Forgets every cached credential: the next request of each user is verified against the log. */
  invalidate(): void {
    this.cache.clear();
    this.generation++;
  }

  stats(): AuthenticationStats {
    return { verifications: this.guards.verifications.stats(), failedLogins: this.guards.failedLogins.stats(), throttled: this.throttled };
  }

  private refuseThrottled(source: string): void {
    const waitMs = this.guards.failedLogins.retryAfterMs(source);
    if (waitMs === 0) return;
    this.throttled++;
    throw Errors.authFailuresThrottled.create(source, Math.ceil(waitMs / 1000));
  }

  /** The verification of new credentials, shared with requests that sent the same header meanwhile. */
  private verification(header: string, digest: string): Promise<Principal> {
    // A client that opens many connections at once sends the same header on each: one scrypt serves them all.
    const shared = this.verifying.get(digest);
    if (shared !== undefined) return shared;
    const { login, password } = parseBasic(header);
    const started = this.guards.verifications.tryRun(() => this.verify(login, password, digest));
    if (started === undefined) throw Errors.authVerificationsBusy.create(BUSY_RETRY_AFTER_SECONDS);
    const verification = started.finally(() => this.verifying.delete(digest));
    this.verifying.set(digest, verification);
    return verification;
  }

  private countOutcome(verification: Promise<Principal>, source: string): Promise<Principal> {
    const { failedLogins } = this.guards;
    return verification.then((principal) => {
      failedLogins.succeeded(source);
      return principal;
    }, (error: unknown) => {
      if (Errors.authCredentialsInvalid.is(error)) failedLogins.failed(source);
      throw error;
    });
  }

  private async verify(login: string, password: string, digest: string): Promise<Principal> {
    const generation = this.generation;
    const found = this.users.find(login);
    if (found === undefined) {
      // Same work as for a real user, so response times do not tell which logins exist.
      this.decoy ??= this.hasher.hash(randomBytes(16).toString('hex'));
      await this.hasher.verify(password, await this.decoy);
      throw Errors.authCredentialsInvalid.create(WRONG);
    }
    if (!(await this.hasher.verify(password, found.user.password))) throw Errors.authCredentialsInvalid.create(WRONG);
    if (found.user.disabled) throw Errors.authUserDisabled.create(login);
    const principal: Principal = Object.freeze({ name: login, groups: Object.freeze([...found.user.groups]) });
    if (generation === this.generation) this.cache.set(digest, principal);
    return principal;
  }
}
