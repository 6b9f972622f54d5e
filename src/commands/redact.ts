import { Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { DB_DEFAULT, dataDirectories } from '../cli/data-directories.js';
import { count } from '../cli/human-text.js';
import { progressDisplay } from '../cli/progress.js';
import { eventsFromFlags } from '../maint/redact/events-list.js';
import { redact, type RedactResult } from '../maint/redact/redact.js';

export default class Redact extends BaseCommand {
  static override summary = 'Blank the data of listed events on a running node, in place (0xFF bytes, size unchanged).';

  static override description = [
    'A last resort for data that must go when rewriting the stream is impractical; it can disturb subscriptions',
    'and projections that read the events again. Run it on the node\'s machine, as the node\'s user, once per node,',
    'while the node runs with --enable-unix-socket. It overwrites the data of each listed event with 0xFF bytes of',
    'the same length and sets its IsRedacted flag; event type, metadata and timestamp stay. Readers see the change',
    'at once: every representation shows empty data, and entries with rich fields (embed=rich and above: feeds,',
    '$all, a single event as application/vnd.svc.atom+json) say isRedacted true; the event document (event+json,',
    'event+xml) and Atom XML keep the reference\'s fixed fields, without it. Only events in completed',
    'chunks can be redacted. Running it twice is harmless. It refuses, changing nothing: no socket (exit 10), an',
    'event that does not exist or is a tombstone (exit 12), an event in the chunk still being written (exit 13), an',
    'event of a metadata stream ($$s: metadata cannot be redacted, write new metadata instead; exit 17) or another',
    'event the node reads for rights ($settings, $users, $user-*, $users-password-notifications, projection',
    'definitions; exit 17), a scavenge',
    'running (exit 7), a malformed --events list (exit 2), a --db that is not a node\'s (exit 8), a run as another user',
    'than the node\'s, root included (exit 8: its copies would not be the node\'s to open). It needs free space',
    'for a copy of each chunk it changes, up to four at once: on a full disk it stops (exit 5), deletes its copies',
    'and says which chunks were switched in before; their events stay redacted, and a second run does the rest.',
    'PROTOCOL. <db>/svcdb.sock (mode 0600) speaks JSON over HTTP/1.1 and serves nothing else; the HTTP port never',
    'serves it. POST /lock takes the node\'s chunk-switch lock (shared with scavenge) for the connection and answers',
    '{"lockId"}; DELETE /lock/{lockId} releases it, as does closing the connection. POST /positions with',
    '{"events":[{"stream","eventNumber"}]} answers, per event, every record found through the index and confirmed',
    'against the log: {"logPosition","chunkFileName","chunkVersion","isCompleted","fileOffset","eventType",',
    '"isTombstone","isRedacted"}, fileOffset being the byte offset of the record in the chunk file. POST /check with',
    '{"lockId","chunks":[{"targetChunkFile","newChunkFile"}]} (1 to 4) has the node start checking copies whose bytes',
    'are final but for the MD5, which may be written meanwhile; their switches wait for that check. POST /switch',
    'with {"lockId","targetChunkFile","newChunkFile"} switches in a .tmp file of the database directory (a plain',
    'name, no /, \\ or ..) that covers the target\'s chunk range, is completed with a correct MD5, and equals the',
    'target (the active file for its chunk number) except for redacted data bytes, flags and record checksums; it',
    'becomes chunk-X.(Y+1) and {"chunkFile"} names it. Errors are {"code","message"} with the code\'s HTTP status.',
    'More: man svcdb-redact; every error code: man svcdb-errors.',
  ].join(' ');

  static override examples = [
    '<%= config.bin %> <%= command.id %> --db /var/lib/svcdb/db --events 5@orders-1,7@orders-1',
    '<%= config.bin %> <%= command.id %> --db /var/lib/svcdb/db --events-file events.txt --dry-run',
    '<%= config.bin %> <%= command.id %> --db /var/lib/svcdb/db --events 0@customer-42 --json',
  ];

  static override flags = {
    db: Flags.string({
      summary: 'Database directory of the running node (its --db); the socket is <db>/svcdb.sock.',
      env: 'SVC_DB',
      default: DB_DEFAULT,
    }),
    events: Flags.string({
      summary: 'Events to redact: eventNumber@stream, separated by commas.',
      helpValue: '5@orders-1,7@orders-1',
      exactlyOne: ['events', 'events-file'],
    }),
    'events-file': Flags.string({
      summary: 'File listing the events to redact, one eventNumber@stream per line (# starts a comment).',
      helpValue: 'FILE',
      exactlyOne: ['events', 'events-file'],
    }),
    'dry-run': Flags.boolean({
      summary: 'Check the events and show where they lie, without changing anything.',
      default: false,
    }),
  };

  async run(): Promise<RedactResult> {
    const { flags } = await this.parse(Redact);
    const events = eventsFromFlags(flags.events, flags['events-file']);
    const display = progressDisplay('Redacting', this.jsonEnabled());
    let result: RedactResult;
    try {
      result = await redact({
        dbPath: dataDirectories(flags, process.cwd()).db, events, dryRun: flags['dry-run'],
        onProgress: (progress) => display.update(progress),
      });
    } catch (error) {
      display.fail();
      throw error;
    }
    display.succeed(`${result.dryRun ? 'would redact' : 'redacted'} ${count(result.events.length, 'event record')}; ${count(result.chunksSwitched.length, 'chunk')} switched`);
    if (!this.jsonEnabled()) {
      for (const event of result.events) {
        const state = event.alreadyRedacted ? 'already redacted' : result.dryRun ? 'would be redacted' : `redacted, now in ${event.newChunkFile}`;
        this.log(`${event.eventNumber}@${event.stream}\t${event.chunkFile}\t${state}`);
      }
    }
    return result;
  }
}

