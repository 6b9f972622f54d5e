/**
 * Every option of a node, declared once. `svcdb serve` derives its flags from this table, the
 * loader reads the same names from the environment and the --config file, /info/options and the
 * man page list it. Add an option here and it exists in all of them.
 */
import { DEFAULT_PASSWORD } from '../default-password.js';
import { boolean, integer, oneOf, text, type OptionValue } from './definition.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const chunkVerifications = ['background', 'blocking', 'off'] as const;
export const logFormats = ['auto', 'json', 'pretty'] as const;
export const projectionModes = ['None', 'System', 'All'] as const;
export type LogFormat = (typeof logFormats)[number];

export const optionSchema = {
  // Application
  config: text('path', {
    group: 'Application',
    description: 'YAML file of options, one PascalCase key per option (HttpPort: 2113). Flags and SVC_* variables override it.',
    default: '',
    optional: true,
    notInConfigFile: true,
  }),

  // Interface
  httpIp: text('ip', {
    group: 'Interface',
    description: 'IP address the HTTP server binds. An address other than loopback needs TLS (--cert-file and --cert-private-key-file) or --insecure.',
    default: '127.0.0.1',
  }),
  httpPort: integer({
    group: 'Interface',
    description: 'Port the HTTP server binds; 0 picks any free port (the "listening" log line shows which).',
    default: 2113, min: 0, max: 65_535, unit: 'port',
  }),
  connectionsMax: integer({
    group: 'Interface',
    description: 'Most HTTP connections open at once, shared among client addresses (IPv6 by /64 network): at the cap, a connection from an address '
      + 'holding fewer than the busiest address takes the place of that address\'s oldest connection; any other is closed as soon as it arrives. '
      + '0 sets it below the open-file limit of the process (ulimit -n), keeping 1024 descriptors for storage files.',
    default: 0, min: 0, max: 1_000_000, unit: 'connections',
  }),
  httpHeadersTimeoutMs: integer({
    group: 'Interface',
    description: 'Time a client has to send the headers of a request once it connected or began the request; '
      + 'a connection that sends none in time is closed. Idle kept-alive connections close after 72 s.',
    default: 10_000, min: 100, max: 600_000, unit: 'ms',
  }),
  httpRequestTimeoutMs: integer({
    group: 'Interface',
    description: 'Time a client has to send a whole request, body included, from its first byte (never less than --http-headers-timeout-ms); a request not complete in time is answered 408 '
      + 'and its connection closed. Independently, a body that arrives slower than 240 bytes a second on average, after its first 5 s, is cut off the same way.',
    default: 120_000, min: 1000, max: 3_600_000, unit: 'ms',
  }),
  insecure: boolean({
    group: 'Interface',
    description: 'Allow plain HTTP on an address other than loopback. Without it and without TLS the node only serves on 127.0.0.0/8 or ::1; with TLS configured it has no effect.',
    default: false,
  }),
  disableHttpCaching: boolean({
    group: 'Interface',
    description: 'Send Cache-Control: max-age=0, no-cache, must-revalidate on every reply, instead of letting clients keep pages that cannot change for a year.',
    default: false,
  }),
  enableUnixSocket: boolean({
    group: 'Interface',
    description: 'Also listen on <db>/svcdb.sock (mode 0600: only the node\'s user may connect) for svcdb redact. The socket serves the redaction operations only, and the HTTP port never does.',
    default: false,
  }),

  // Certificates
  certFile: text('path', {
    group: 'Certificates',
    description: 'PEM file of the node certificate: the leaf first, then any intermediates. With --cert-private-key-file the node serves HTTPS.',
    default: '',
    optional: true,
  }),
  certPrivateKeyFile: text('path', {
    group: 'Certificates',
    description: 'PEM file of the unencrypted private key of --cert-file.',
    default: '',
    optional: true,
  }),
  trustedRootCertificatesPath: text('path', {
    group: 'Certificates',
    description: 'Directory of trusted CA certificates (*.pem, *.crt) or one PEM file of them. When set, the chain of --cert-file must lead to one of them.',
    default: '',
    optional: true,
  }),

  // Authentication
  defaultAdminPassword: text('string', {
    group: 'Authentication',
    description: 'Password of the admin user ($admins) created on the first start of a database (changeit unless set); later starts ignore it. The log warns while it is changeit. Prefer --default-admin-password-file or the environment: a command line is visible to every user of the machine.',
    default: DEFAULT_PASSWORD,
    sensitive: true,
  }),
  defaultAdminPasswordFile: text('path', {
    group: 'Authentication',
    description: 'File that holds the password of --default-admin-password (one trailing line break is ignored). A flag wins over an SVC_* variable; the password and its file given the same way is an error.',
    default: '',
    optional: true,
  }),
  defaultOpsPassword: text('string', {
    group: 'Authentication',
    description: 'Password of the ops user ($ops) created on the first start of a database (changeit unless set); later starts ignore it. The log warns while it is changeit. Prefer --default-ops-password-file or the environment: a command line is visible to every user of the machine.',
    default: DEFAULT_PASSWORD,
    sensitive: true,
  }),
  defaultOpsPasswordFile: text('path', {
    group: 'Authentication',
    description: 'File that holds the password of --default-ops-password (one trailing line break is ignored). A flag wins over an SVC_* variable; the password and its file given the same way is an error.',
    default: '',
    optional: true,
  }),
  allowAnonymousEndpointAccess: boolean({
    group: 'Authentication',
    description: 'Let requests without credentials read /stats and /metrics. /ping, /info and /gossip never need credentials.',
    default: false,
  }),
  allowAnonymousStreamAccess: boolean({
    group: 'Authentication',
    description: 'Let requests without credentials use streams whose ACL grants the right to $all. Without it every stream request needs a user.',
    default: false,
  }),

  enableTrustedAuth: boolean({
    group: 'Authentication',
    description: 'Believe Svc-TrustedAuth: login or login;group1,group2 on requests, without credentials, as sent by a trusted proxy that authenticated the client and strips the header from what clients send. Needs TLS (--cert-file).',
    default: false,
  }),

  passwordVerificationsMax: integer({
    group: 'Authentication',
    description: 'Credentials the node verifies at once when they are not in its cache (scrypt, one thread each, beside the thread pool of the storage\'s I/O). Verified credentials are cached and never wait for these.',
    default: 2, min: 1, max: 32, unit: 'verifications',
  }),
  passwordVerificationQueueMax: integer({
    group: 'Authentication',
    description: 'Credentials waiting to be verified when --password-verifications-max are under way; a request beyond them is refused with 503 SVCDB_ERR_AUTH_VERIFICATIONS_BUSY and Retry-After.',
    default: 100, min: 0, max: 100_000, unit: 'verifications',
  }),
  failedLoginsMax: integer({
    group: 'Authentication',
    description: 'Failed logins from one client address within a minute after which that address is refused with 429 SVCDB_ERR_AUTH_FAILURES_THROTTLED and Retry-After, without checking its credentials, for 5 s, then twice as long after each further failure (up to 60 s). A login from the address that is verified, not answered from the cache, clears its count. 0 never refuses an address.',
    default: 30, min: 0, max: 1_000_000, unit: 'failures',
  }),

  // Database
  db: text('path', {
    group: 'Database',
    description: 'Directory of the transaction log, checkpoints and lock file; created if missing.',
    default: './data/db',
  }),
  index: text('path', {
    group: 'Database',
    description: 'Directory of the index files; must differ from --db.',
    default: '<db>/../index',
    derivedDefault: true,
  }),
  chunkSize: integer({
    group: 'Database',
    description: 'Logical data size of one transaction log chunk. Fixed when the database is created.',
    default: 256 * MiB, min: 64 * KiB, max: 1 * GiB, unit: 'bytes',
  }),
  maxMemTableSize: integer({
    group: 'Database',
    description: 'Index entries held in memory before they are written to an index file.',
    default: 1_000_000, min: 1, max: 100_000_000, unit: 'entries',
  }),
  streamInfoCacheCapacity: integer({
    group: 'Database',
    description: 'Streams whose last event number and metadata are kept in memory.',
    default: 100_000, min: 1, max: 100_000_000, unit: 'streams',
  }),
  streamExistenceFilterSize: integer({
    group: 'Database',
    description: 'Size of the stream existence filter, about one byte per expected stream; 0 turns the filter off.',
    default: 64 * MiB, min: 0, max: 4 * GiB, unit: 'bytes',
    check: (value) => (value > 0 && value < 4 * KiB ? 'must be 0 (no filter) or at least 4096' : undefined),
  }),
  cachedChunks: integer({
    group: 'Database',
    description: 'Completed chunks kept in memory for reads, newest first.',
    default: 2, min: 0, max: 64, unit: 'chunks',
  }),
  idempotencyCacheCapacity: integer({
    group: 'Database',
    description: 'Event ids remembered to answer repeated appends with expected version "any" idempotently.',
    default: 100_000, min: 1, max: 100_000_000, unit: 'event ids',
  }),
  verifyChunks: oneOf({
    group: 'Database',
    description: 'How the hashes of completed chunks are checked at start: in the background, before serving, or not at all.',
    values: chunkVerifications,
    default: 'background',
  }),

  // Logging
  logLevel: oneOf({
    group: 'Logging',
    description: 'Least severe level written to the log (on stdout, in the --log-format).',
    values: logLevels,
    default: 'info',
  }),
  logFormat: oneOf({
    group: 'Logging',
    description: 'How log lines are written to stdout: json is one JSON object per line, for machines and log collectors; pretty is one readable, coloured line per event (time, level, message, key=value fields); auto is pretty when stdout is a terminal and json otherwise.',
    values: logFormats,
    default: 'auto',
  }),
  logHttpRequests: boolean({
    group: 'Logging',
    description: 'Log one line per HTTP request: method, path, status, duration. Credentials are never logged.',
    default: false,
  }),

  // Projections
  runProjections: oneOf({
    group: 'Projections',
    description: 'Which projections the node runs: None (no projections API, /info says projections: false), System (the system projections $by_category, $by_event_type, $stream_by_category, $streams and $by_correlation_id), or All (system and user projections).',
    values: projectionModes,
    default: 'None',
  }),
  startStandardProjections: boolean({
    group: 'Projections',
    description: 'Enable and start the system projections when the node starts; without it they stay as they were left (Stopped after they are first created).',
    default: false,
  }),
  projectionExecutionTimeout: integer({
    group: 'Projections',
    description: 'Longest a user projection\'s handlers may run for one event; a projection past it faults with a stateReason that says so. The default of new projections; each projection\'s config may set its own.',
    default: 250, min: 1, max: 600_000, unit: 'ms',
  }),
  projectionMemoryLimitMb: integer({
    group: 'Projections',
    description: 'Heap each user projection\'s JavaScript may use, its ArrayBuffers included (projections have no WebAssembly); a projection past it faults, and the node and other projections go on.',
    default: 128, min: 8, max: 8192, unit: 'MiB',
  }),

  // Scavenge
  disableScavengeMerging: boolean({
    group: 'Scavenge',
    description: 'Do not merge small scavenged chunks into files of about 256 MB.',
    default: false,
  }),
  scavengeHistoryMaxAge: integer({
    group: 'Scavenge',
    description: 'How long the $scavenges streams keep the history of scavenges.',
    default: 30, min: 1, max: 36_500, unit: 'days',
  }),
  alwaysKeepScavenged: boolean({
    group: 'Scavenge',
    description: 'Always keep the newer chunk of a scavenge, even when it is not smaller.',
    default: false,
    deprecated: 'it is ignored and will be removed; remove it from the command line, environment or config file',
  }),
  scavengeBackendPageSize: integer({
    group: 'Scavenge',
    description: 'Page size of the scavenge state database.',
    default: 16, min: 1, max: 64, unit: 'KiB',
  }),
  scavengeBackendCacheSize: integer({
    group: 'Scavenge',
    description: 'Memory the scavenge state database may use as a cache.',
    default: 64 * MiB, min: 0, max: 16 * GiB, unit: 'bytes',
  }),
  scavengeHashUsersCacheCapacity: integer({
    group: 'Scavenge',
    description: 'Stream hashes remembered when checking hash collisions during accumulation; raise it if accumulation reports many cache misses.',
    default: 100_000, min: 1, max: 100_000_000, unit: 'hashes',
  }),

  // Replication
  replicaOf: text('string', {
    group: 'Replication',
    description: 'Run as a read-only replica of the node at this URL (http://host:port or https://…): the replica copies the leader\'s log byte for byte and serves reads; '
      + 'writes and management are redirected to the leader (307). Empty: the node leads.',
    default: '',
    optional: true,
  }),
  replicaUser: text('string', {
    group: 'Replication',
    description: 'User the replica logs in to its leader as when the leader does not let it in by its node certificate; it must be in $ops or $admins on the leader.',
    default: 'ops',
  }),
  replicaPassword: text('string', {
    group: 'Replication',
    description: 'Password of --replica-user on the leader (changeit unless set). Prefer --replica-password-file or the environment: a command line is visible to every user of the machine.',
    default: 'changeit',
    sensitive: true,
  }),
  replicaPasswordFile: text('path', {
    group: 'Replication',
    description: 'File that holds the password of --replica-password (one trailing line break is ignored). A flag wins over an SVC_* variable; the password and its file given the same way is an error.',
    default: '',
    optional: true,
  }),

  // Cluster
  clusterSize: integer({
    group: 'Cluster',
    description: 'Nodes in the cluster, this one included: 1 for a single node, 3 or 5 for a cluster whose members and leader come from etcd (--etcd-endpoints). '
      + 'A majority of this number is the quorum.',
    default: 1, min: 1, max: 7, unit: 'nodes',
    check: (value) => (value % 2 === 1 ? undefined : 'must be odd: an even cluster survives no more failures than the odd size below it'),
  }),
  etcdEndpoints: text('string', {
    group: 'Cluster',
    description: 'The etcd cluster that holds the members and the leader\'s lease, as comma-separated client URLs (http://10.0.0.1:2379,http://10.0.0.2:2379). '
      + 'With it the node joins the cluster named by --cluster-name: it leads when etcd elects it and follows the leader otherwise. Empty: no cluster.',
    default: '',
    optional: true,
  }),
  clusterName: text('string', {
    group: 'Cluster',
    description: 'Name of the cluster in etcd: the nodes of one cluster share it, and several clusters can share one etcd. Letters, digits, dot, dash and underscore.',
    default: 'svcdb',
  }),
  advertiseHttpUrl: text('string', {
    group: 'Cluster',
    description: 'URL at which the other nodes and clients reach this node (http://10.0.0.1:2113), as the node registers it in etcd. Needed with --etcd-endpoints.',
    default: '',
    optional: true,
  }),
  leaderLeaseTtlMs: integer({
    group: 'Cluster',
    description: 'Time-to-live of the leader\'s lease in etcd, in whole seconds: a leader stops acknowledging writes a margin before its lease could lapse, '
      + 'and another node can be elected only once it has lapsed. Shorter fails over faster; longer rides out longer pauses of etcd or the leader.',
    default: 5000, min: 2000, max: 60_000, unit: 'ms',
    check: (value) => (value % 1000 === 0 ? undefined : 'must be a whole number of seconds (etcd leases are granted in seconds)'),
  }),
  nodePriority: integer({
    group: 'Cluster',
    description: 'Preference of this node in leader elections: among nodes that hold the same records, the higher priority campaigns first.',
    default: 0, min: -1000, max: 1000, unit: 'priority',
  }),
} as const;

export type OptionKey = keyof typeof optionSchema;

/** The validated, frozen options of a node. */
export type NodeOptions = { readonly [K in OptionKey]: OptionValue<(typeof optionSchema)[K]> };

export const optionKeys = Object.keys(optionSchema) as OptionKey[];
