/**
 * Every error svcdb can report, declared once. A code is stable (clients and tests match on it);
 * the message says what went wrong and, where the caller can act, what to do about it.
 * Programmer mistakes are plain TypeErrors and are not declared here.
 */

export class SvcError extends Error {
  readonly code: string;
  readonly statusCode: number;
  readonly details: Record<string, unknown>;

  constructor(code: string, statusCode: number, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'SvcError';
    this.code = code;
    this.statusCode = statusCode;
    this.details = details;
  }
}

export interface ErrorDefinition<A extends unknown[]> {
  readonly code: string;
  readonly statusCode: number;
  readonly summary: string;
  create(...args: A): SvcError;
  is(error: unknown): error is SvcError;
}

const registry = new Map<string, ErrorDefinition<never>>();

function define<A extends unknown[]>(
  code: string,
  statusCode: number,
  summary: string,
  format: (...args: A) => string,
  details?: (...args: A) => Record<string, unknown>,
): ErrorDefinition<A> {
  if (registry.has(code)) throw new TypeError(`error code ${code} declared twice`);
  const definition: ErrorDefinition<A> = {
    code,
    statusCode,
    summary,
    create: (...args: A) => new SvcError(code, statusCode, format(...args), details?.(...args) ?? {}),
    is: (error: unknown): error is SvcError => error instanceof SvcError && error.code === code,
  };
  registry.set(code, definition);
  return definition;
}

/** All declared errors, for documentation and the test that checks it. */
export function allErrors(): ReadonlyArray<ErrorDefinition<never>> {
  return [...registry.values()];
}

/** What a code means, in a sentence that names no file or value; undefined for an unknown code. */
export function summaryOf(code: string): string | undefined {
  return registry.get(code)?.summary;
}

export function isSvcError(error: unknown): error is SvcError {
  return error instanceof SvcError;
}

/**
 * An error another svcdb process reported (a node's reply, its reload record), with its code and
 * message, as an error of this process; undefined for a code this version does not declare.
 */
export function reviveError(code: string, message: string, details: Record<string, unknown> = {}): SvcError | undefined {
  const definition = registry.get(code);
  return definition && new SvcError(code, definition.statusCode, message, details);
}

const at = (file: string, position: number) => ({ file, position });

export const Errors = {
  // Storage: the engine stops on any of these; they name the file and the position.
  storageLocked: define(
    'SVCDB_ERR_STORAGE_LOCKED', 409, 'another process holds the database lock',
    (dbPath: string, pid: string) =>
      `database ${dbPath} is locked by process ${pid || 'unknown'}; stop that node first, or point --db at another directory`,
  ),
  storageChecksum: define(
    'SVCDB_ERR_STORAGE_CHECKSUM', 500, 'a record failed its checksum',
    (file: string, position: number) =>
      `checksum mismatch in ${file} at position ${position}; the file is corrupt, restore it from a backup`,
    at,
  ),
  storageChunkHash: define(
    'SVCDB_ERR_STORAGE_CHUNK_HASH', 500, 'a completed chunk does not match its stored hash',
    (file: string) => `hash mismatch in completed chunk ${file}; the file is corrupt, restore it from a backup`,
    (file: string) => ({ file }),
  ),
  storageCorrupt: define(
    'SVCDB_ERR_STORAGE_CORRUPT', 500, 'a storage file is malformed',
    (file: string, position: number, what: string) =>
      `${file} is corrupt at position ${position}: ${what}; restore it from a backup`,
    at,
  ),
  storageIo: define(
    'SVCDB_ERR_STORAGE_IO', 500, 'a write or fsync failed; the node stops rather than risk losing data',
    (file: string, operation: string, cause: string) =>
      `${operation} failed on ${file}: ${cause}; the node stopped to protect acknowledged data, check the disk and restart`,
    (file: string, operation: string) => ({ file, operation }),
  ),
  storageCheckpoint: define(
    'SVCDB_ERR_STORAGE_CHECKPOINT', 500, 'checkpoints contradict each other or the log',
    (what: string) => `inconsistent checkpoints: ${what}; restore the database from a backup`,
  ),
  storageClosed: define(
    'SVCDB_ERR_STORAGE_CLOSED', 503, 'the engine is closed or stopped after a fatal error',
    (reason: string) => `the database is not available: ${reason}`,
  ),
  storageFull: define(
    'SVCDB_ERR_STORAGE_CHUNK_LIMIT', 507, 'the log reached its maximum number of chunks',
    (limit: number) => `the log reached ${limit} chunks; scavenge or raise --chunk-size`,
  ),
  storageDiskFull: define(
    'SVCDB_ERR_STORAGE_DISK_FULL', 507, 'the disk or quota holding the database is full; writes are refused, reads go on',
    (file: string, cause: string) =>
      `the disk holding ${file} is full (${cause}); nothing was written. Free space or raise the quota: writes are accepted again as soon as there is room`,
    (file: string) => ({ file }),
  ),
  storageDescriptorsExhausted: define(
    'SVCDB_ERR_STORAGE_DESCRIPTORS', 503, 'the process has no file descriptor left for a storage file; writes are refused',
    (file: string, cause: string) =>
      `no file descriptor was left to open ${file} (${cause}); nothing was written. Lower --connections-max or raise the descriptor limit (ulimit -n)`,
    (file: string) => ({ file }),
  ),
  storageReplacementInvalid: define(
    'SVCDB_ERR_STORAGE_REPLACEMENT_INVALID', 400, 'a rewritten chunk was refused: it does not match the chunks it would replace',
    (file: string, why: string) => `the rewritten chunk ${file} was refused and nothing changed: ${why}`,
    (file: string) => ({ file }),
  ),
  chunkSwitchLocked: define(
    'SVCDB_ERR_CHUNK_SWITCH_LOCKED', 409, 'another operation holds the chunk-switch lock (a scavenge or a redaction)',
    (holderKind: string, sinceMs: number) =>
      `chunk switches are locked by a running ${holderKind} (since ${new Date(sinceMs).toISOString()}); scavenge and redaction exclude each other: wait for the ${holderKind} to finish, or stop it, then run again`,
    (holderKind: string, sinceMs: number) => ({ holderKind, sinceMs }),
  ),
  indexCorrupt: define(
    'SVCDB_ERR_INDEX_CORRUPT', 500, 'an index file is malformed',
    (file: string, what: string) => `index file ${file} is corrupt: ${what}; delete the index directory to rebuild it from the log`,
    (file: string) => ({ file }),
  ),

  // Stream operations: the client's request cannot be carried out as sent.
  wrongExpectedVersion: define(
    'SVCDB_ERR_STREAM_WRONG_EXPECTED_VERSION', 400, 'the stream is not at the expected version',
    (stream: string, expected: number, current: number, repeatedEvents: number = 0) => repeatedEvents > 0
      ? `the batch starts with ${repeatedEvents} event(s) already written to stream ${stream} and goes on with new ones; `
        + 'send only the new events, or the original batch unchanged (a repeat of it is answered with its first result)'
      : `stream ${stream} is at version ${current}, not the expected ${expected}; read the stream and retry with its current version`,
    (stream: string, expected: number, current: number, repeatedEvents: number = 0) => ({ stream, expected, current, repeatedEvents }),
  ),
  streamDeleted: define(
    'SVCDB_ERR_STREAM_DELETED', 410, 'the stream was deleted',
    (stream: string, soft = false) => soft
      ? `stream ${stream} was deleted; expected version -4 (stream exists) does not hold, append with -2, -1 or its last event number to recreate it`
      : `stream ${stream} has been deleted permanently; use another stream name`,
    (stream: string, soft = false) => ({ stream, soft }),
  ),
  streamNotFound: define(
    'SVCDB_ERR_STREAM_NOT_FOUND', 404, 'no such stream',
    (stream: string) => `stream ${stream} does not exist`,
    (stream: string) => ({ stream }),
  ),
  invalidStreamName: define(
    'SVCDB_ERR_STREAM_INVALID_NAME', 400, 'the stream name is not allowed',
    (why: string) => `invalid stream name: ${why}`,
  ),
  invalidExpectedVersion: define(
    'SVCDB_ERR_STREAM_INVALID_EXPECTED_VERSION', 400, 'the expected version is not a valid value',
    (value: string) => `expected version ${value} is invalid; use -2 (any), -1 (no stream), -4 (stream exists) or an event number >= 0`,
  ),
  invalidEvent: define(
    'SVCDB_ERR_EVENT_INVALID', 400, 'an event in the request is malformed',
    (why: string) => `invalid event: ${why}`,
  ),
  eventNotFound: define(
    'SVCDB_ERR_EVENT_NOT_FOUND', 404, 'the stream has no such event, or the event is a link whose target is gone',
    (stream: string, event: string, danglingLink: boolean) => (danglingLink
      ? `event ${event} of stream ${stream} is a link to an event that no longer exists; read it without resolving links (Svc-ResolveLinkTos: false) to see the link itself`
      : `stream ${stream} has no event ${event}; read the stream's feed for the events it has`),
    (stream: string, event: string) => ({ stream, event }),
  ),
  eventTooLarge: define(
    'SVCDB_ERR_EVENT_TOO_LARGE', 413, 'an event exceeds the maximum record size',
    (bytes: number, limit: number) => `an event of ${bytes} bytes exceeds the limit of ${limit} bytes; split the data into smaller events`,
  ),
  eventsTooLarge: define(
    'SVCDB_ERR_EVENTS_TOO_LARGE', 413, 'the event data and metadata of one request exceed 4 MiB',
    (bytes: number, limitBytes: number) =>
      `Too large events received: the data and metadata of this request take ${bytes} bytes, over the limit of ${limitBytes} bytes; send fewer or smaller events per request`,
    (bytes: number, limitBytes: number) => ({ bytes, limitBytes }),
  ),
  appendTooLarge: define(
    'SVCDB_ERR_APPEND_TOO_LARGE', 413, 'an append exceeds what fits in one chunk',
    (bytes: number, limit: number) => `an append of ${bytes} bytes exceeds the limit of ${limit} bytes; send fewer events per request`,
  ),
  // HTTP: the node's own replies to requests it cannot route or parse, and the catch-all.
  httpNotFound: define(
    'SVCDB_ERR_HTTP_NOT_FOUND', 404, 'no resource at this path',
    (method: string, url: string) => `no resource at ${method} ${url}`,
  ),
  httpRequestInvalid: define(
    'SVCDB_ERR_HTTP_REQUEST_INVALID', 400, 'the request is malformed',
    (why: string) => `invalid request: ${why}`,
  ),
  httpBodyTooLarge: define(
    'SVCDB_ERR_HTTP_BODY_TOO_LARGE', 413, 'the request body exceeds the size limit',
    (limitBytes: number) => `the request body exceeds the limit of ${limitBytes} bytes; send a smaller body`,
  ),
  httpHeadersTooLarge: define(
    'SVCDB_ERR_HTTP_HEADERS_TOO_LARGE', 431, 'the request headers are larger than the server accepts',
    (limitBytes: number) => `the request headers exceed ${limitBytes} bytes; send fewer or shorter headers`,
  ),
  httpRequestTimeout: define(
    'SVCDB_ERR_HTTP_REQUEST_TIMEOUT', 408, 'the client did not send a request\'s headers in time',
    (timeoutMs: number) => `no complete request headers arrived within ${timeoutMs} ms; send the request as soon as the connection is open`,
  ),
  httpBodyTimeout: define(
    'SVCDB_ERR_HTTP_BODY_TIMEOUT', 408, 'the client sent a request\'s body too slowly',
    (why: string) => `the request body did not arrive in time: ${why}; send the whole request at once, or raise --http-request-timeout-ms for very large bodies on slow links`,
  ),
  httpCrossSiteRefused: define(
    'SVCDB_ERR_HTTP_CROSS_SITE_REFUSED', 400, 'a state-changing request came from another site\'s page without proof that it is not a forgery',
    (method: string, site: string) => `${method} from ${site} refused: a page of another origin may not change this node with the browser's credentials; `
      + 'send it from the node\'s own pages, or from script with an X-Requested-With or Svc-* header or a Content-Type such as application/json, '
      + 'which browsers send across origins only after a CORS preflight and without ambient credentials',
  ),
  httpMediaType: define(
    'SVCDB_ERR_HTTP_MEDIA_TYPE', 415, 'the Content-Type is missing or not supported by this route',
    (contentType: string, accepted?: readonly string[]) => `Invalid or missing Content-Type: ${contentType || '(none)'}`
      + (accepted ? `; send one of ${accepted.join(', ')}` : ''),
  ),
  httpHeaderInvalid: define(
    'SVCDB_ERR_HTTP_HEADER_INVALID', 400, 'a request header has a value that is not allowed',
    (header: string, why: string) => `${header} header in wrong format: ${why}`,
    (header: string) => ({ header }),
  ),
  httpPathInvalid: define(
    'SVCDB_ERR_HTTP_PATH_INVALID', 400, 'a path segment (event number, count or position) is not valid',
    (value: string, why: string) => `'${value}' is not valid: ${why}`,
  ),
  httpMethodNotAllowed: define(
    'SVCDB_ERR_HTTP_METHOD_NOT_ALLOWED', 405, 'the resource exists but does not answer to this method',
    (method: string, allowed: string) => `${method} is not allowed here; use ${allowed}`,
  ),
  httpNotAcceptable: define(
    'SVCDB_ERR_HTTP_NOT_ACCEPTABLE', 406, 'no representation of the resource matches the Accept header',
    (accept: string, offered: string) => `Requested URI is not available in requested format (${accept || 'none'}); ask for one of ${offered}`,
  ),
  filterInvalid: define(
    'SVCDB_ERR_FILTER_INVALID', 400, 'the filter of a filtered $all read is not valid',
    (why: string) => `invalid filter: ${why}`,
  ),
  eventTypeMissing: define(
    'SVCDB_ERR_EVENT_TYPE_MISSING', 400, 'a single raw event was sent without an event type',
    () => 'Must include an event type with the request either in body or as Svc-EventType header.',
  ),
  eventIdMissing: define(
    'SVCDB_ERR_EVENT_ID_MISSING', 400, 'an event was sent without an event id where one is required',
    (where: string) => `Empty eventId provided (${where}); send a UUID`,
  ),
  eventIdNil: define(
    'SVCDB_ERR_EVENT_ID_NIL', 400, 'an event id is the nil UUID (all zeros), which cannot tell one event from another',
    (where: string) => `Empty eventId provided (${where}): 00000000-0000-0000-0000-000000000000 is the nil UUID, and every event `
      + 'sent with it would count as a repeat of the first; give each event its own UUID (a random one, version 4)',
    (where: string) => ({ where }),
  ),
  // Authentication and authorization: every denial is a 401 (the reference never answers 403).
  authRequired: define(
    'SVCDB_ERR_AUTH_REQUIRED', 401, 'the resource needs credentials and the request had none',
    (what: string) => `credentials are needed to ${what}; send HTTP Basic credentials of a user (Authorization: Basic base64(login:password))`,
  ),
  authCredentialsInvalid: define(
    'SVCDB_ERR_AUTH_CREDENTIALS_INVALID', 401, 'the credentials are malformed, or the login name or password is wrong',
    (why: string) => `invalid credentials: ${why}`,
  ),
  authUserDisabled: define(
    'SVCDB_ERR_AUTH_USER_DISABLED', 401, 'the user is disabled',
    (login: string) => `user ${login} is disabled; an administrator can enable it with POST /users/${login}/command/enable`,
    (login: string) => ({ login }),
  ),
  authVerificationsBusy: define(
    'SVCDB_ERR_AUTH_VERIFICATIONS_BUSY', 503, 'too many new credentials are waiting to be verified',
    (retryAfterSeconds: number) =>
      `the node is verifying as many new credentials as it takes at once; retry after ${retryAfterSeconds} s (credentials it has verified before are not held up)`,
    (retryAfterSeconds: number) => ({ retryAfterSeconds }),
  ),
  authFailuresThrottled: define(
    'SVCDB_ERR_AUTH_FAILURES_THROTTLED', 429, 'too many failed logins came from the client\'s address',
    (source: string, retryAfterSeconds: number) =>
      `too many failed logins from ${source}; retry after ${retryAfterSeconds} s with the right login name and password`,
    (source: string, retryAfterSeconds: number) => ({ source, retryAfterSeconds }),
  ),
  accessDenied: define(
    'SVCDB_ERR_ACCESS_DENIED', 401, 'the user may not do this',
    (who: string, what: string, allowed: string) => `${who} may not ${what}; allowed: ${allowed}`,
  ),

  // Replication.
  replicaReadOnly: define(
    'SVCDB_ERR_REPLICA_READ_ONLY', 503, 'a read-only replica takes no writes; its log is the leader\'s',
    (what: string) => `this node is a read-only replica and cannot be ${what}; send the request to the leader (the replica answers writes over HTTP with 307 and its URL)`,
  ),
  replicationProtocol: define(
    'SVCDB_ERR_REPLICATION_PROTOCOL', 400, 'a replication request or frame does not fit the log it is meant for',
    (what: string) => `replication refused: ${what}; the follower reconnects and handshakes again`,
  ),
  replicationDiverged: define(
    'SVCDB_ERR_REPLICATION_DIVERGED', 500, 'a replica\'s copy of a chunk differs from the leader\'s',
    (what: string) => `the replica's log differs from the leader's: ${what}; the replica stopped. Restore it from a backup of the leader or start it empty`,
  ),
  replicaUnavailable: define(
    'SVCDB_ERR_REPLICA_LEADER_UNREACHABLE', 502, 'the leader a replica follows did not answer as expected',
    (url: string, why: string) => `the leader at ${url} did not answer: ${why}; check --replica-of and the leader`,
  ),

  // Cluster.
  clusterNoQuorum: define(
    'SVCDB_ERR_CLUSTER_NO_QUORUM', 503, 'the cluster leader could not make a write durable on a majority of the nodes in time',
    (why: string, retryAfterSeconds: number) =>
      `the write was not acknowledged: ${why}. It may still be committed; retry with the same event ids (idempotent) after ${retryAfterSeconds} s, and check the followers and etcd if this lasts`,
    (_why: string, retryAfterSeconds: number) => ({ retryAfterSeconds }),
  ),
  clusterNoLeader: define(
    'SVCDB_ERR_CLUSTER_NO_LEADER', 503, 'the cluster has no leader at the moment: writes wait for an election',
    (retryAfterSeconds: number) =>
      `this node knows no cluster leader yet (an election is under way, or etcd is unreachable); retry after ${retryAfterSeconds} s`,
    (retryAfterSeconds: number) => ({ retryAfterSeconds }),
  ),
  clusterPriorityAtStart: define(
    'SVCDB_ERR_CLUSTER_PRIORITY_AT_START', 400, 'a node\'s priority is set when it starts and cannot change while it runs',
    (priority: number) => `the node priority cannot change to ${priority} while the node runs; set --node-priority (NodePriority) to ${priority} and restart the node`,
    (priority: number) => ({ priority }),
  ),

  // Persistent subscriptions.
  subscriptionNotFound: define(
    'SVCDB_ERR_SUBSCRIPTION_NOT_FOUND', 404, 'no subscription group of this name on this stream',
    (streamName: string, group: string) => `no subscription group ${group} on stream ${streamName}; create it with PUT /subscriptions/{stream}/{group}`,
    (streamName: string, group: string) => ({ stream: streamName, group }),
  ),
  subscriptionExists: define(
    'SVCDB_ERR_SUBSCRIPTION_EXISTS', 409, 'a subscription group of this name exists on this stream',
    (streamName: string, group: string) => `subscription group ${group} on stream ${streamName} already exists; change it with POST, or delete it first`,
    (streamName: string, group: string) => ({ stream: streamName, group }),
  ),
  subscriptionSettingsInvalid: define(
    'SVCDB_ERR_SUBSCRIPTION_SETTINGS_INVALID', 400, 'the settings of a subscription group are not valid',
    (why: string) => why,
  ),
  subscriptionMessageIdInvalid: define(
    'SVCDB_ERR_SUBSCRIPTION_MESSAGE_ID_INVALID', 400, 'a message id to acknowledge is not a UUID',
    (value: string) => `messageid should be a properly formed guid: '${value}'; use the ids of the ack and nack links of the feed`,
  ),
  subscriptionParameterInvalid: define(
    'SVCDB_ERR_SUBSCRIPTION_PARAMETER_INVALID', 400, 'a path segment or query parameter of a subscription request is not valid',
    (why: string) => why,
  ),
  subscriptionFull: define(
    'SVCDB_ERR_SUBSCRIPTION_FULL', 409, 'the subscription group has as many consumers as its maxSubscriberCount allows',
    (group: string, max: number) => `subscription group ${group} already has its maximum of ${max} consumers; retry once one has left, or raise maxSubscriberCount`,
  ),

  // Users API.
  userNotFound: define(
    'SVCDB_ERR_USER_NOT_FOUND', 404, 'no such user',
    (login: string) => `user ${login} does not exist`,
    (login: string) => ({ login }),
  ),
  userConflict: define(
    'SVCDB_ERR_USER_CONFLICT', 409, 'a user with this login name exists with another password',
    (login: string) => `user ${login} already exists with a different password; choose another login name, or update the user with PUT /users/${login}`,
    (login: string) => ({ login }),
  ),
  userInvalid: define(
    'SVCDB_ERR_USER_INVALID', 400, 'the user request body is malformed',
    (why: string) => `invalid user request: ${why}`,
  ),
  userPasswordWrong: define(
    'SVCDB_ERR_USER_PASSWORD_WRONG', 401, 'the current password given to change-password is wrong',
    (login: string) => `the current password of ${login} is wrong; send the password the user has now as currentPassword`,
    (login: string) => ({ login }),
  ),

  internal: define(
    'SVCDB_ERR_INTERNAL', 500, 'an unexpected failure; the server log has the details',
    (requestId: string) => `internal error; the server log has the details under request id ${requestId}`,
    (requestId: string) => ({ requestId }),
  ),

  nodeShuttingDown: define(
    'SVCDB_ERR_NODE_SHUTTING_DOWN', 503, 'the node is shutting down and takes no new requests',
    () => 'the node is shutting down; retry against a running node',
  ),

  // Start-up: the node cannot start as configured; the message names the option to change.
  optionInvalid: define(
    'SVCDB_ERR_OPTION_INVALID', 400, 'an option has a value that is not allowed',
    (option: string, why: string) => `invalid option ${option}: ${why}`,
    (option: string) => ({ option }),
  ),
  optionUnknown: define(
    'SVCDB_ERR_OPTION_UNKNOWN', 400, 'the config file has a key that is not an option',
    (key: string, file: string, fix: string) => `unknown option ${key} in ${file}; ${fix}`,
    (key: string, file: string) => ({ option: key, file }),
  ),
  optionConflict: define(
    'SVCDB_ERR_OPTION_CONFLICT', 400, 'two options cannot be used together as given',
    (first: string, second: string, why: string) => `options ${first} and ${second} conflict: ${why}`,
    (first: string, second: string) => ({ options: [first, second] }),
  ),
  optionRequires: define(
    'SVCDB_ERR_OPTION_REQUIRES', 400, 'an option needs other options that were not given',
    (option: string, required: string[], why: string) => `option ${option} requires ${required.join(' and ')}: ${why}`,
    (option: string, required: string[]) => ({ option, requires: required }),
  ),
  cliUsage: define(
    'SVCDB_ERR_CLI_USAGE', 400, 'the command line is wrong: an unknown command or flag, a missing or extra argument, a bad or repeated flag value',
    (problem: string, command?: string) => (command === undefined ? problem : `${command}: ${problem}`),
    (problem: string, command?: string) => (command === undefined ? { problem } : { problem, command }),
  ),
  optionConfigFile: define(
    'SVCDB_ERR_OPTION_CONFIG_FILE', 400, 'the --config file cannot be read or is not a YAML mapping',
    (file: string, why: string) => `cannot use config file ${file}: ${why}; fix the file or the --config path`,
    (file: string) => ({ file }),
  ),
  httpListen: define(
    'SVCDB_ERR_HTTP_LISTEN', 500, 'the HTTP server cannot listen on the configured address',
    (address: string, cause: string) =>
      `cannot listen on ${address}: ${cause}; stop the process using that address or choose another --http-ip / --http-port`,
    (address: string) => ({ address }),
  ),

  // Certificates: loaded and checked all together at start and on every reload. The message names
  // the option and the file; a reload that meets one of these changes nothing.
  certFileUnreadable: define(
    'SVCDB_ERR_CERT_FILE_UNREADABLE', 400, 'a certificate, key or trusted root file cannot be read',
    (option: string, file: string, cause: string) =>
      `cannot read ${option} ${file}: ${cause}; check the path and that the user running svcdb may read it`,
    (option: string, file: string) => ({ option, file }),
  ),
  certInvalid: define(
    'SVCDB_ERR_CERT_INVALID', 400, 'a certificate file holds no valid PEM certificate',
    (option: string, file: string, why: string) =>
      `${option} ${file} ${why}; give a PEM file of certificates (-----BEGIN CERTIFICATE-----), the leaf first`,
    (option: string, file: string) => ({ option, file }),
  ),
  certKeyInvalid: define(
    'SVCDB_ERR_CERT_KEY_INVALID', 400, 'the private key file holds no usable PEM key',
    (file: string, cause: string) =>
      `--cert-private-key-file ${file} is not an unencrypted PEM private key (${cause}); give the certificate's key in PEM, without a passphrase`,
    (file: string) => ({ option: '--cert-private-key-file', file }),
  ),
  certKeyMismatch: define(
    'SVCDB_ERR_CERT_KEY_MISMATCH', 400, 'the private key does not belong to the certificate',
    (keyFile: string, certFile: string) =>
      `the private key in ${keyFile} does not match the certificate in ${certFile}; give the key the certificate was issued for`,
    (keyFile: string, certFile: string) => ({ keyFile, certFile }),
  ),
  certValidityPeriod: define(
    'SVCDB_ERR_CERT_VALIDITY_PERIOD', 400, 'a certificate is expired or not yet valid',
    (file: string, subject: string, why: string) =>
      `certificate ${subject} in ${file} ${why}; replace it with a certificate valid now`,
    (file: string, subject: string) => ({ file, subject }),
  ),
  certUntrusted: define(
    'SVCDB_ERR_CERT_UNTRUSTED', 400, 'the certificate chain does not lead to a trusted root',
    (file: string, rootsPath: string, why: string) =>
      `the certificate in ${file} is not trusted by the roots in ${rootsPath}: ${why}; `
      + `put the intermediates after the leaf in ${file}, or add the issuing CA to ${rootsPath}`,
    (file: string, rootsPath: string) => ({ file, rootsPath }),
  ),
  certRefused: define(
    'SVCDB_ERR_CERT_REFUSED', 400, 'the TLS library refuses the certificate or key (a weak key or signature, an unsupported algorithm)',
    (certFile: string, keyFile: string, cause: string) =>
      `the TLS library refuses ${certFile} with ${keyFile}: ${cause}; issue a certificate with a stronger key (RSA 2048 bits or more, or EC P-256) and signature (SHA-256 or better)`,
    (certFile: string, keyFile: string) => ({ certFile, keyFile }),
  ),
  certNoTrustedRoots: define(
    'SVCDB_ERR_CERT_NO_TRUSTED_ROOTS', 400, 'the trusted root path holds no certificate file',
    (path: string) =>
      `--trusted-root-certificates-path ${path} holds no *.pem or *.crt file; put the CA certificates there, or leave the option unset`,
    (path: string) => ({ option: '--trusted-root-certificates-path', path }),
  ),

  // Clients of a running node (svcdb cert-reload). They run outside the node, so the HTTP
  // statuses only classify them; the exit codes are what scripts see.
  clientUnreachable: define(
    'SVCDB_ERR_CLIENT_UNREACHABLE', 503, 'the node cannot be reached at the given URL',
    (url: string, cause: string) =>
      `cannot reach the node at ${url} (${cause}); check that the node is running and that --url has its address, port and protocol (http or https)`,
    (url: string) => ({ url }),
  ),
  clientNoLeader: define(
    'SVCDB_ERR_CLIENT_NO_LEADER', 503, 'none of the nodes given with --url leads the cluster, or names a leader that answers',
    (tried: string) =>
      `found no leader among the nodes given with --url: ${tried}; start the nodes that are down, wait for the election to end, or give the URL of a node of the cluster that runs`,
    (tried: string) => ({ tried }),
  ),
  clientTls: define(
    'SVCDB_ERR_CLIENT_TLS', 502, 'the node presented a certificate the command does not trust',
    (url: string, cause: string) =>
      `the node at ${url} presented a certificate this command does not trust (${cause}); pass the CA that issued it with --ca-file, and use a host name or address the certificate names`,
    (url: string) => ({ url }),
  ),
  clientUnauthorized: define(
    'SVCDB_ERR_CLIENT_UNAUTHORIZED', 401, 'the node refused the credentials',
    (url: string, username: string) =>
      `the node at ${url} refused the credentials of user ${username}; check --username and --password or --password-file (SVC_USERNAME, SVC_PASSWORD, SVC_PASSWORD_FILE): the user must be enabled and have the rights the request needs (admin commands need an admin or ops user)`,
    (url: string, username: string) => ({ url, username }),
  ),
  clientUnexpectedReply: define(
    'SVCDB_ERR_CLIENT_UNEXPECTED_REPLY', 502, 'the node answered in a way the command does not understand',
    (source: string, what: string) => `${source} ${what}; check that it is a svcdb node of this version`,
    (source: string) => ({ source }),
  ),
  clientTimeout: define(
    'SVCDB_ERR_CLIENT_TIMEOUT', 504, 'the node did not answer in time',
    (target: string, seconds: number, advice: string) => `no answer from ${target} within ${seconds} s; ${advice}`,
    (target: string, seconds: number) => ({ target, seconds }),
  ),
  clientNodeNotRunning: define(
    'SVCDB_ERR_CLIENT_NODE_NOT_RUNNING', 503, 'no running node holds the database lock',
    (lockFile: string) => `no running node holds ${lockFile}; start the node, or point --db at the database directory of the running node`,
    (lockFile: string) => ({ lockFile }),
  ),
  clientNodeNotReady: define(
    'SVCDB_ERR_CLIENT_NODE_NOT_READY', 503, 'the node answers but does not serve requests',
    (url: string, state: string) =>
      `the node at ${url} answers but is ${state}, not serving requests; wait until it has started (svcdb status exits 0 then), or read its log`,
    (url: string, state: string) => ({ url, state }),
  ),
  clientLeaderUnreachable: define(
    'SVCDB_ERR_CLIENT_LEADER_UNREACHABLE', 503, 'the read-only replica cannot reach its leader',
    (url: string, leaderUrl: string, reason: string) =>
      `the read-only replica at ${url} serves what it has but cannot reach its leader ${leaderUrl}${reason ? ` (${reason})` : ''}; start the leader or check the network and the replica's --replica-of, then read the replica's log`,
    (url: string, leaderUrl: string, reason: string) => ({ url, leaderUrl, reason }),
  ),
  clientProjectionsOff: define(
    'SVCDB_ERR_CLIENT_PROJECTIONS_OFF', 404, 'the node does not run projections',
    (url: string) => `the node at ${url} does not run projections (it has no projections API); start it with --run-projections All (or System for the system projections only)`,
    (url: string) => ({ url }),
  ),
  clientEventInvalid: define(
    'SVCDB_ERR_CLIENT_EVENT_INVALID', 400, 'an event given to svcdb stream append is malformed',
    (where: string, why: string) => `${where}: ${why}`,
    (where: string) => ({ where }),
  ),
  clientSignalFailed: define(
    'SVCDB_ERR_CLIENT_SIGNAL_FAILED', 503, 'the node\'s process cannot be sent a signal',
    (pid: number, cause: string) => `cannot send SIGHUP to process ${pid} (${cause}); run the command as the user that runs the node, or as root`,
    (pid: number) => ({ pid }),
  ),

  // Projections API.
  projectionNotFound: define(
    'SVCDB_ERR_PROJECTION_NOT_FOUND', 404, 'no such projection',
    (name: string) => `projection ${name} does not exist; GET /projections/any lists the projections of this node`,
    (name: string) => ({ name }),
  ),
  projectionConflict: define(
    'SVCDB_ERR_PROJECTION_CONFLICT', 409, 'a projection with this name exists',
    (name: string) => `Duplicate projection names : ${name}; choose another name, or change the existing one with PUT /projection/${name}/query`,
    (name: string) => ({ name }),
  ),
  projectionRequestInvalid: define(
    'SVCDB_ERR_PROJECTION_REQUEST_INVALID', 400, 'a projection request has a malformed parameter',
    (why: string) => `invalid projection request: ${why}`,
  ),
  projectionQueryInvalid: define(
    'SVCDB_ERR_PROJECTION_QUERY_INVALID', 400, 'the source of a projection does not compile or declares no events',
    (name: string, why: string) => `the query of projection ${name} is not usable: ${why}`,
    (name: string) => ({ name }),
  ),
  projectionConfigInvalid: define(
    'SVCDB_ERR_PROJECTION_CONFIG_INVALID', 400, 'a projection config update is malformed',
    (name: string, why: string) => `Failed to parse the projection config of ${name}: ${why}`,
    (name: string) => ({ name }),
  ),
  projectionRunning: define(
    'SVCDB_ERR_PROJECTION_RUNNING', 400, 'the projection must be stopped for this',
    (name: string, what: string) => `projection ${name} is running; disable it first (POST /projection/${name}/command/disable), then ${what}`,
    (name: string) => ({ name }),
  ),
  projectionSystem: define(
    'SVCDB_ERR_PROJECTION_SYSTEM', 400, 'system projections cannot be deleted',
    (name: string) => `${name} is a system projection and cannot be deleted; disable it instead`,
    (name: string) => ({ name }),
  ),
  projectionsUserDisabled: define(
    'SVCDB_ERR_PROJECTIONS_USER_DISABLED', 400, 'user projections are not run by this node',
    () => 'this node runs only the system projections (--run-projections System); start it with --run-projections All to create user projections',
  ),

  // Redaction (svcdb redact and the node's unix socket). The command runs outside the node, so
  // the HTTP statuses only classify them; the exit codes are what scripts see.
  redactEventsInvalid: define(
    'SVCDB_ERR_REDACT_EVENTS_INVALID', 400, 'the list of events to redact is malformed',
    (source: string, why: string) => `${source}: ${why}; list events as eventNumber@stream separated by commas (5@orders-1,7@orders-1), or one per line with --events-file`,
    (source: string) => ({ source }),
  ),
  redactEventNotFound: define(
    'SVCDB_ERR_REDACT_EVENT_NOT_FOUND', 404, 'an event to redact does not exist or is a tombstone',
    (event: string, why: string) => `event ${event} cannot be redacted: ${why}; nothing was changed: remove it from --events and run again`,
    (event: string) => ({ event }),
  ),
  redactChunkNotCompleted: define(
    'SVCDB_ERR_REDACT_CHUNK_NOT_COMPLETED', 409, 'an event to redact is still in the active (incomplete) chunk',
    (event: string, chunkFile: string) =>
      `event ${event} is in ${chunkFile}, the chunk the node is still writing; only completed chunks can be redacted, and nothing was changed: `
      + 'run again once the node has written enough events after it to complete that chunk (--chunk-size bytes per chunk)',
    (event: string, chunkFile: string) => ({ event, chunkFile }),
  ),
  redactMetadataEvent: define(
    'SVCDB_ERR_REDACT_METADATA_EVENT', 400, 'an event to redact is stream metadata',
    (event: string, stream: string) =>
      `event ${event} is metadata of stream ${stream} (its ACL, $maxAge, $maxCount, $tb…); metadata cannot be redacted, since the node reads it to decide who `
      + 'may read the stream and which events it keeps, and nothing was changed: remove it from --events; to drop a value from the metadata, write new '
      + `metadata without it (POST /streams/${stream}/metadata): the node uses the latest only`,
    (event: string, stream: string) => ({ event, stream }),
  ),
  redactInterpretedEvent: define(
    'SVCDB_ERR_REDACT_INTERPRETED_EVENT', 400, 'an event to redact is one the node reads to decide who may do what',
    (event: string, what: string) =>
      `event ${event} is ${what}, which the node reads to decide who may do what; redacting it would change rights rather than hide data, so it `
      + 'cannot be redacted, and nothing was changed: remove it from --events, and change what it holds through the API that writes it '
      + '(/users, $settings, /projection/{name})',
    (event: string, what: string) => ({ event, what }),
  ),
  redactNoSocket: define(
    'SVCDB_ERR_REDACT_NO_SOCKET', 503, 'the node\'s redaction socket cannot be reached',
    (socketPath: string, cause: string) =>
      `cannot connect to ${socketPath} (${cause}); start the node on this --db with --enable-unix-socket (SVC_ENABLE_UNIX_SOCKET=true), and run svcdb redact as the node's user`,
    (socketPath: string) => ({ socketPath }),
  ),
  redactNotDataDirectory: define(
    'SVCDB_ERR_REDACT_NOT_DATA_DIRECTORY', 400, 'the --db directory is not a node\'s database directory',
    (path: string, why: string) => `${path} is not a svcdb database directory: ${why}; point --db at the directory the node serves (its --db)`,
    (path: string) => ({ path }),
  ),
  redactDiskFull: define(
    'SVCDB_ERR_REDACT_DISK_FULL', 507, 'the disk or quota holding the database is full: the redactor cannot write its copies of the chunks',
    (dbPath: string, cause: string, chunksSwitched: number) =>
      `the disk holding ${dbPath} is full (${cause}): a redaction writes a copy of each chunk it changes next to it; `
      + (chunksSwitched === 0 ? 'nothing was redacted' : `the ${chunksSwitched} chunk(s) switched in before stay redacted, the rest were not`)
      + ', and its copies were deleted. Free space (or raise the quota) and run svcdb redact again',
    (dbPath: string, cause: string, chunksSwitched: number) => ({ dbPath, chunksSwitched }),
  ),
  redactWrongUser: define(
    'SVCDB_ERR_REDACT_WRONG_USER', 403, 'svcdb redact runs as another user than the node',
    (socketPath: string, runningAs: string, nodeUser: string) =>
      `svcdb redact runs as ${runningAs}, but the node runs as ${nodeUser} (the owner of ${socketPath}): the node could not open the copies it writes; `
      + `nothing was changed. Run it as the node's user, for example sudo -u ${nodeUser.startsWith('uid ') ? `'#${nodeUser.slice(4)}'` : nodeUser} svcdb redact …`,
    (socketPath: string, runningAs: string, nodeUser: string) => ({ socketPath, runningAs, nodeUser }),
  ),
  redactRequestInvalid: define(
    'SVCDB_ERR_REDACT_REQUEST_INVALID', 400, 'a request on the redaction socket is malformed',
    (why: string) => `redaction request refused: ${why}`,
  ),

  // Scavenge: the node's admin routes, and svcdb scavenge (whose exit codes are what scripts see).
  scavengeParameterInvalid: define(
    'SVCDB_ERR_SCAVENGE_PARAMETER_INVALID', 400, 'a scavenge start parameter is not valid',
    (parameter: string, why: string) => `invalid ${parameter}: ${why}`,
    (parameter: string) => ({ parameter }),
  ),
  scavengeAlreadyRunning: define(
    'SVCDB_ERR_SCAVENGE_ALREADY_RUNNING', 400, 'a scavenge is already running on the node',
    (scavengeId: string) =>
      `Scavenge is already running: scavenge ${scavengeId}; follow it with GET /admin/scavenge/current, or stop it with DELETE /admin/scavenge/${scavengeId} before starting another`,
    (scavengeId: string) => ({ scavengeId }),
  ),
  scavengeNotFound: define(
    'SVCDB_ERR_SCAVENGE_NOT_FOUND', 404, 'no running scavenge has this id',
    (scavengeId: string) => (scavengeId === 'current'
      ? 'no scavenge is running on this node'
      : `Scavenge Id does not exist: ${scavengeId} is not the running scavenge; GET /admin/scavenge/current gives its id`),
    (scavengeId: string) => ({ scavengeId }),
  ),
  scavengeFailed: define(
    'SVCDB_ERR_SCAVENGE_FAILED', 500, 'the scavenge ended with result Failed',
    (scavengeId: string, error: string) =>
      `scavenge ${scavengeId} failed: ${error || 'no reason given'}; the node's log has the details, and the next start resumes it`,
    (scavengeId: string) => ({ scavengeId }),
  ),
  scavengeStopped: define(
    'SVCDB_ERR_SCAVENGE_STOPPED', 409, 'the scavenge was stopped before it completed',
    (scavengeId: string) =>
      `scavenge ${scavengeId} was stopped before it completed (a stop request, or the node shutting down); the next start resumes it from where it stopped`,
    (scavengeId: string) => ({ scavengeId }),
  ),

  invalidArgument: define(
    'SVCDB_ERR_INVALID_ARGUMENT', 400, 'an argument is out of range',
    (name: string, why: string) => `invalid ${name}: ${why}`,
  ),

  // Backup and restore (svcdb backup, svcdb backup verify, svcdb restore): they never run inside a
  // node, so the HTTP statuses only classify them; the exit codes are what scripts see.
  backupNotDataDirectory: define(
    'SVCDB_ERR_BACKUP_NOT_DATA_DIRECTORY', 400, 'the backup source is not a node\'s data directory',
    (path: string, why: string) => `${path} is not a svcdb data directory: ${why}; point --db (and --index) at the node's directories`,
    (path: string) => ({ path }),
  ),
  backupScavengeRunning: define(
    'SVCDB_ERR_BACKUP_SCAVENGE_RUNNING', 409, 'a scavenge is running or rests stopped on the node, so its files must not be copied',
    // The state file cannot tell a running scavenge from a stopped one (scavenge-state.ts).
    (stage: string, stateFile: string) =>
      `a scavenge is running or rests stopped on this node (stage ${stage} in ${stateFile}); a file copy taken now could miss or mix chunks: back up after the scavenge has finished (a stopped one must be resumed to its end)`,
    (stage: string, stateFile: string) => ({ stage, stateFile }),
  ),
  backupOtherNode: define(
    'SVCDB_ERR_BACKUP_OTHER_NODE', 409, 'the destination holds a backup of another node',
    (destination: string, backupNodeId: string, nodeId: string) =>
      `${destination} holds a backup of node ${backupNodeId}, and this is node ${nodeId}; backups of different nodes are never mixed: use another destination`,
    (destination: string, backupNodeId: string, nodeId: string) => ({ destination, backupNodeId, nodeId }),
  ),
  backupNotABackup: define(
    'SVCDB_ERR_BACKUP_NOT_A_BACKUP', 400, 'the path is not a svcdb backup',
    (path: string, why: string) => `${path} is not a svcdb backup: ${why}`,
    (path: string) => ({ path }),
  ),
  backupIncomplete: define(
    'SVCDB_ERR_BACKUP_INCOMPLETE', 409, 'the backup did not finish',
    (path: string) => `the backup in ${path} is incomplete: the first backup into it did not finish; run the backup again`,
    (path: string) => ({ path }),
  ),
  backupSourceChanged: define(
    'SVCDB_ERR_BACKUP_SOURCE_CHANGED', 409, 'the node changed during the backup in a way a file copy cannot follow',
    (what: string) => `the backup was abandoned: ${what}; run it again`,
  ),
  backupDestinationLocked: define(
    'SVCDB_ERR_BACKUP_DESTINATION_LOCKED', 409, 'another backup is writing to the destination',
    (destination: string, pid: string) => `another backup (process ${pid}) is writing to ${destination}; wait for it to finish`,
    (destination: string) => ({ destination }),
  ),
  backupCorrupt: define(
    'SVCDB_ERR_BACKUP_CORRUPT', 500, 'the backup failed verification',
    (path: string, problems: ReadonlyArray<{ file: string; problem: string }>) =>
      `backup ${path} failed verification with ${problems.length} problem(s): ${problems.slice(0, 5).map((p) => `${p.file}: ${p.problem}`).join('; ')}${problems.length > 5 ? '; …' : ''}`,
    (path: string, problems: ReadonlyArray<{ file: string; problem: string }>) => ({ path, problems }),
  ),
  backupIo: define(
    'SVCDB_ERR_BACKUP_IO', 500, 'reading or writing a file of a backup or restore failed',
    (file: string, operation: string, cause: string) => `${operation} failed on ${file}: ${cause}`,
    (file: string, operation: string) => ({ file, operation }),
  ),
  backupDiskFull: define(
    'SVCDB_ERR_BACKUP_DISK_FULL', 507, 'the disk or quota holding a backup or restore target is full',
    (file: string, cause: string) =>
      `the disk holding ${file} is full (${cause}); the file was not put in place. Free space or raise the quota on that file system, then run the command again`,
    (file: string) => ({ file }),
  ),
  restoreTargetNotEmpty: define(
    'SVCDB_ERR_RESTORE_TARGET_NOT_EMPTY', 409, 'the directories to restore into are not empty',
    (directory: string) => `${directory} is not empty; restore into empty directories, or pass --force to replace the database there`,
    (directory: string) => ({ directory }),
  ),
} as const;
