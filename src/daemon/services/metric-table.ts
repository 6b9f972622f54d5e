/**
 * The series /metrics exports beside prom-client's process_* and nodejs_* defaults, declared one
 * per line: name (base unit last: `_bytes`, `_seconds`, `_total` for counters), what it tells an
 * operator, and where its value comes from. /stats keeps the reference's field table; this is the
 * Prometheus view of the same figures, curated, so that a name never depends on a field's path.
 * Process memory, CPU and GC are left to the defaults, which name them as Prometheus users expect.
 */
import type { Stats } from './stats.js';

export type Labels = Record<string, string>;
export type Sample = readonly [Labels, number];

/** A projection's figures at one instant (projection-readings.ts). */
export interface ProjectionReading {
  name: string;
  mode: string;
  status: string;
  eventsProcessed: number;
  /** Log position of the last event the projection handled. */
  positionBytes: number;
  /** Bytes of the log past what the projection has handled and made durable. */
  lagBytes: number;
  bufferedEvents: number;
}

/** Everything one scrape reads, taken once so that all series describe the same instant. */
export interface MetricInputs {
  stats: Stats;
  projections: readonly ProjectionReading[];
}

export interface SeriesDefinition {
  name: string;
  type: 'counter' | 'gauge';
  help: string;
  labels?: readonly string[];
  /** One unlabelled value, or one sample per label set; undefined when the node does not have the part. */
  read: (inputs: MetricInputs) => number | readonly Sample[] | undefined;
}

/** One sample per entry of a branch keyed by name (a queue, a drive, a subscription group). */
function each<T>(branch: Record<string, T> | undefined, label: string, pick: (entry: T) => number): Sample[] | undefined {
  return branch && Object.entries(branch).map(([key, entry]) => [{ [label]: key }, pick(entry)] as const);
}

function perProjection(pick: (reading: ProjectionReading) => number): (inputs: MetricInputs) => Sample[] {
  return ({ projections }) => projections.map((reading) => [{ projection: reading.name }, pick(reading)] as const);
}

const svc = (inputs: MetricInputs) => inputs.stats.svc;

export const SERIES: readonly SeriesDefinition[] = [
  // The log and its writer.
  { name: 'svcdb_log_written_position_bytes', type: 'gauge', help: 'Position of the end of the log that is flushed to disk (the writer checkpoint), in bytes from the start of the log.', read: (i) => svc(i).checksum },
  { name: 'svcdb_log_appended_position_bytes', type: 'gauge', help: 'Position of the end of the log including appends not yet flushed, in bytes from the start of the log.', read: (i) => svc(i).checksumNonFlushed },
  { name: 'svcdb_log_chunks', type: 'gauge', help: 'Chunks the log is made of, by chunk number (a file a scavenge merged covers several).', read: (i) => svc(i).chunkCount },
  { name: 'svcdb_writer_flushes_total', type: 'counter', help: 'Group commits the writer flushed to disk (each ends with an fsync).', read: (i) => svc(i).writer.totalFlushes },
  { name: 'svcdb_writer_flushed_bytes_total', type: 'counter', help: 'Bytes the writer flushed to the log.', read: (i) => svc(i).writer.totalFlushedBytes },
  { name: 'svcdb_writer_refused_commits_total', type: 'counter', help: 'Group commits refused because the disk was full or file descriptors ran out; any increase needs an operator.', read: (i) => svc(i).writer.refusedCommits },
  { name: 'svcdb_writer_last_flush_bytes', type: 'gauge', help: 'Size of the latest group commit.', read: (i) => svc(i).writer.lastFlushSize },
  { name: 'svcdb_writer_last_flush_duration_seconds', type: 'gauge', help: 'Time the latest group commit took, fsync included.', read: (i) => svc(i).writer.lastFlushDelayMs / 1000 },
  { name: 'svcdb_writer_max_flush_duration_seconds', type: 'gauge', help: 'Longest group commit since the node started, fsync included; a slow disk shows here first.', read: (i) => svc(i).writer.maxFlushDelayMs / 1000 },
  { name: 'svcdb_writer_queued_commits', type: 'gauge', help: 'Appends waiting for the writer; a growing queue means the disk does not keep up.', read: (i) => svc(i).writer.queuedFlushMessages },
  { name: 'svcdb_chaser_position_bytes', type: 'gauge', help: 'Position in the chaser checkpoint (chaser.chk, written once a second): how far the index had read the log, in bytes from the start of the log.', read: (i) => svc(i).chaserCheckpoint },

  // The index and reads.
  { name: 'svcdb_index_memtable_entries', type: 'gauge', help: 'Entries in the in-memory index table not yet written to an index file.', read: (i) => svc(i).index.memTableEntries },
  { name: 'svcdb_index_frozen_memtables', type: 'gauge', help: 'In-memory index tables waiting to be written to disk.', read: (i) => svc(i).index.frozenMemTables },
  { name: 'svcdb_index_files', type: 'gauge', help: 'Index files on disk; merges keep the count low.', read: (i) => svc(i).index.files },
  { name: 'svcdb_index_commit_position_bytes', type: 'gauge', help: 'Log position the index files cover, in bytes from the start of the log.', read: (i) => svc(i).index.commitPosition },
  {
    name: 'svcdb_read_index_record_reads_total', type: 'counter', labels: ['source'],
    help: 'Records read by the read index: source="memory" were served from memory, source="file" needed a read from a chunk file.',
    read: (i) => [[{ source: 'memory' }, svc(i).readIndex.cachedRecord], [{ source: 'file' }, svc(i).readIndex.notCachedRecord]],
  },
  {
    name: 'svcdb_read_index_stream_info_lookups_total', type: 'counter', labels: ['result'],
    help: 'Look-ups of a stream\'s metadata and last event number: result="hit" were answered by the cache, result="miss" read the log.',
    read: (i) => [[{ result: 'hit' }, svc(i).readIndex.cachedStreamInfo], [{ result: 'miss' }, svc(i).readIndex.notCachedStreamInfo]],
  },
  { name: 'svcdb_read_index_hash_collisions_total', type: 'counter', help: 'Stream name hash collisions the index resolved by reading the log; each costs a disk read.', read: (i) => svc(i).readIndex.hashCollisions },

  // Internal queues and what follows the log.
  { name: 'svcdb_queue_length', type: 'gauge', labels: ['queue'], help: 'Items waiting in an internal queue (the writer, HTTP requests).', read: (i) => each(svc(i).queue, 'queue', (queue) => queue.length) },
  { name: 'svcdb_queue_items_processed_total', type: 'counter', labels: ['queue'], help: 'Items an internal queue has handled.', read: (i) => each(svc(i).queue, 'queue', (queue) => queue.totalItemsProcessed) },
  { name: 'svcdb_consumer_position_bytes', type: 'gauge', labels: ['consumer'], help: 'Log position a reader of the log (long polls, subscriptions) has reached, in bytes from the start of the log.', read: (i) => each(svc(i).consumers, 'consumer', (consumer) => consumer.position) },
  { name: 'svcdb_consumer_behind_bytes', type: 'gauge', labels: ['consumer'], help: 'Bytes of the log a reader of the log has not reached yet.', read: (i) => each(svc(i).consumers, 'consumer', (consumer) => consumer.behindBytes) },
  { name: 'svcdb_consumer_pages_handled_total', type: 'counter', labels: ['consumer'], help: 'Pages of the log a reader of the log has handled.', read: (i) => each(svc(i).consumers, 'consumer', (consumer) => consumer.pagesHandled) },
  {
    name: 'svcdb_consumer_state', type: 'gauge', labels: ['consumer', 'state'],
    help: 'A reader of the log and its state (the state label); the value is always 1.',
    read: (i) => Object.entries(svc(i).consumers).map(([consumer, fields]) => [{ consumer, state: fields.state }, 1] as const),
  },

  // Persistent subscription groups, labelled stream::group as /stats keys them.
  { name: 'svcdb_subscription_in_flight_messages', type: 'gauge', labels: ['subscription'], help: 'Messages a subscription group has sent to consumers and not yet had acknowledged.', read: (i) => each(svc(i).subscriptions, 'subscription', (group) => group.inFlight) },
  { name: 'svcdb_subscription_parked_messages', type: 'gauge', labels: ['subscription'], help: 'Messages a subscription group has parked after their retries ran out; replay them once the consumer is fixed.', read: (i) => each(svc(i).subscriptions, 'subscription', (group) => group.parked) },
  { name: 'svcdb_subscription_lag_events', type: 'gauge', labels: ['subscription'], help: 'Events of the stream a subscription group has not handled yet.', read: (i) => each(svc(i).subscriptions, 'subscription', (group) => group.lag) },
  { name: 'svcdb_subscription_processed_messages_total', type: 'counter', labels: ['subscription'], help: 'Messages a subscription group\'s consumers have acknowledged since the node started.', read: (i) => each(svc(i).subscriptions, 'subscription', (group) => group.totalItemsProcessed) },
  { name: 'svcdb_subscription_connections', type: 'gauge', labels: ['subscription'], help: 'Consumers connected to a subscription group.', read: (i) => each(svc(i).subscriptions, 'subscription', (group) => group.connections) },

  // Projections.
  {
    name: 'svcdb_projection_status', type: 'gauge', labels: ['projection', 'mode', 'status'],
    help: 'A projection and its status (Running, Stopped, Faulted, Completed…, in the status label); the value is always 1.',
    read: ({ projections }) => projections.map((reading) => [{ projection: reading.name, mode: reading.mode, status: reading.status }, 1] as const),
  },
  { name: 'svcdb_projection_events_processed_total', type: 'counter', labels: ['projection'], help: 'Events a projection has handled since it last started.', read: perProjection((reading) => reading.eventsProcessed) },
  { name: 'svcdb_projection_position_bytes', type: 'gauge', labels: ['projection'], help: 'Log position of the last event a projection handled, in bytes from the start of the log.', read: perProjection((reading) => reading.positionBytes) },
  { name: 'svcdb_projection_lag_bytes', type: 'gauge', labels: ['projection'], help: 'Bytes of the log a projection has not handled and made durable yet; 0 when it has caught up.', read: perProjection((reading) => reading.lagBytes) },
  { name: 'svcdb_projection_buffered_events', type: 'gauge', labels: ['projection'], help: 'Events a projection has read and not yet handed to its handlers.', read: perProjection((reading) => reading.bufferedEvents) },

  // Scavenge.
  { name: 'svcdb_scavenge_running', type: 'gauge', help: '1 while a scavenge runs, 0 otherwise.', read: (i) => svc(i).scavenge?.running },
  { name: 'svcdb_scavenge_chunks_done', type: 'gauge', help: 'Chunks the running (or last) scavenge has finished.', read: (i) => svc(i).scavenge?.chunksDone },
  { name: 'svcdb_scavenge_chunks', type: 'gauge', help: 'Chunks the running (or last) scavenge goes through.', read: (i) => svc(i).scavenge?.chunksTotal },
  { name: 'svcdb_scavenge_saved_bytes', type: 'gauge', help: 'Disk space the running (or last) scavenge has given back.', read: (i) => svc(i).scavenge?.spaceSaved },
  {
    name: 'svcdb_scavenges_total', type: 'counter', labels: ['outcome'],
    help: 'Scavenges since the node started: outcome="started", and of those "succeeded", "failed" or "stopped".',
    read: (i) => {
      const scavenge = svc(i).scavenge;
      return scavenge && [
        [{ outcome: 'started' }, scavenge.scavengesStarted], [{ outcome: 'succeeded' }, scavenge.scavengesSucceeded],
        [{ outcome: 'failed' }, scavenge.scavengesFailed], [{ outcome: 'stopped' }, scavenge.scavengesStopped],
      ];
    },
  },

  // Replication.
  { name: 'svcdb_replication_replicas', type: 'gauge', help: 'Read-only replicas that follow this node now.', read: (i) => svc(i).replication?.replicasFollowing },
  { name: 'svcdb_replication_sent_bytes_total', type: 'counter', help: 'Bytes of the log (frames) this node sent to its replicas.', read: (i) => svc(i).replication?.sentBytes },
  { name: 'svcdb_replication_lag_bytes', type: 'gauge', help: 'On a replica: bytes the leader has durable that this replica has not written yet, as of the leader\'s last heartbeat.', read: (i) => svc(i).replication?.replica?.lagBytes },
  { name: 'svcdb_replication_lag_seconds', type: 'gauge', help: 'On a replica: how long ago the leader had durable what this replica still lacks; 0 when it has all the leader last reported.', read: (i) => svc(i).replication?.replica?.lagSeconds },
  { name: 'svcdb_replication_received_bytes_total', type: 'counter', help: 'On a replica: bytes received from the leader.', read: (i) => svc(i).replication?.replica?.receivedBytes },
  { name: 'svcdb_replication_reconnects_total', type: 'counter', help: 'On a replica: times it connected to its leader again after a connection failed or ended.', read: (i) => svc(i).replication?.replica?.reconnects },

  // Authentication.
  { name: 'svcdb_auth_verifications_running', type: 'gauge', help: 'Password verifications (slow on purpose) running now.', read: (i) => svc(i).authentication?.verificationsRunning },
  { name: 'svcdb_auth_verifications_waiting', type: 'gauge', help: 'Password verifications waiting for a free slot.', read: (i) => svc(i).authentication?.verificationsWaiting },
  { name: 'svcdb_auth_verifications_refused_total', type: 'counter', help: 'Password verifications refused because too many waited; the clients were answered 503.', read: (i) => svc(i).authentication?.verificationsRefused },
  { name: 'svcdb_auth_failed_logins_total', type: 'counter', help: 'Requests whose credentials were wrong.', read: (i) => svc(i).authentication?.failedLogins },
  { name: 'svcdb_auth_throttled_requests_total', type: 'counter', help: 'Requests refused because their address failed to log in too often.', read: (i) => svc(i).authentication?.throttledRequests },
  { name: 'svcdb_auth_throttled_sources', type: 'gauge', help: 'Client addresses being slowed down now for failed logins.', read: (i) => svc(i).authentication?.throttledSources },

  // The process's connections and disk I/O (the defaults do not cover these).
  { name: 'svcdb_tcp_connections', type: 'gauge', help: 'Client connections open now.', read: (i) => i.stats.proc.tcp.connections },
  { name: 'svcdb_tcp_received_bytes_total', type: 'counter', help: 'Bytes received from clients.', read: (i) => i.stats.proc.tcp.receivedBytesTotal },
  { name: 'svcdb_tcp_sent_bytes_total', type: 'counter', help: 'Bytes sent to clients.', read: (i) => i.stats.proc.tcp.sentBytesTotal },
  { name: 'svcdb_tcp_pending_send_bytes', type: 'gauge', help: 'Bytes written to client connections that the kernel has not taken yet; slow clients hold them.', read: (i) => i.stats.proc.tcp.pendingSend },
  { name: 'svcdb_disk_read_bytes_total', type: 'counter', help: 'Bytes the process read from storage devices.', read: (i) => i.stats.proc.diskIo.readBytes },
  { name: 'svcdb_disk_written_bytes_total', type: 'counter', help: 'Bytes the process wrote to storage devices.', read: (i) => i.stats.proc.diskIo.writtenBytes },
  { name: 'svcdb_disk_read_operations_total', type: 'counter', help: 'Read calls the process made to storage.', read: (i) => i.stats.proc.diskIo.readOps },
  { name: 'svcdb_disk_write_operations_total', type: 'counter', help: 'Write calls the process made to storage.', read: (i) => i.stats.proc.diskIo.writeOps },

  // The file systems of the data directories.
  { name: 'svcdb_drive_available_bytes', type: 'gauge', labels: ['drive'], help: 'Free space on the file system of a data directory (the drive label is its mount point); the node stops appending when it runs out.', read: (i) => each(i.stats.sys.drive, 'drive', (drive) => drive.availableBytes) },
  { name: 'svcdb_drive_size_bytes', type: 'gauge', labels: ['drive'], help: 'Size of the file system of a data directory.', read: (i) => each(i.stats.sys.drive, 'drive', (drive) => drive.totalBytes) },
];
