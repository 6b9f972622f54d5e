import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { Args, Flags } from '@oclif/core';
import { Errors } from '../../common/errors.js';
import { NodeCommand } from '../../cli/node-command.js';
import { checkSomething, StreamAppender, type AppendResult } from '../../maint/streams/append.js';
import { batchEntry, fileDataText, jsonText, lineEntry } from '../../maint/streams/event-input.js';
import { expectedVersionFlag, expectedVersionOfFlag } from '../../cli/stream-flags.js';
import { NodeClient } from '../../maint/node-client/node-client.js';

export default class StreamAppend extends NodeCommand {
  static override summary = 'Append events to a stream: one from --data or --data-file, or one per line of standard input.';

  static override description = [
    'With --data (or --data-file) one event of --type is appended. Without them, each line of standard input is an',
    'event: a JSON object {"eventType":"T","data":{...},"metadata":{...}} (an "eventId" is added when missing), or',
    'with --type the data alone. Lines go in batches of up to 500 events; each batch is written atomically. Data',
    'and metadata reach the node as the bytes given (big integers, 1.0 and escapes stay as written). Text in',
    '--data-file that is not JSON is stored as text. --expected-version makes the append conditional: it fails',
    '(exit 20) unless the stream is at that version, and a long input is checked batch after batch.',
    'Exit codes: man svcdb-stream-append; every error code: man svcdb-errors.',
  ].join(' ');

  static override examples = [
    '<%= config.bin %> <%= command.id %> orders-1 --type OrderPlaced --data \'{"total":12.50}\'',
    '<%= config.bin %> <%= command.id %> orders-1 -t OrderPlaced --data-file order.json --expected-version no-stream',
    'printf \'%s\\n\' \'{"eventType":"A","data":{"n":1}}\' \'{"eventType":"B","data":{"n":2}}\' | <%= config.bin %> <%= command.id %> orders-1',
    'jq -c \'.items[]\' items.json | <%= config.bin %> <%= command.id %> items --type ItemAdded',
  ];

  static override args = {
    stream: Args.string({ description: 'The stream to append to (created by its first event).', required: true }),
  };

  static override flags = {
    type: Flags.string({ char: 't', summary: 'Event type of --data or --data-file, or of every line of standard input.', helpValue: 'TYPE' }),
    data: Flags.string({ char: 'd', summary: 'The event\'s data, JSON.', helpValue: 'JSON', exclusive: ['data-file'] }),
    'data-file': Flags.string({ summary: 'File holding the event\'s data (JSON, or text).', helpValue: 'FILE' }),
    metadata: Flags.string({ char: 'm', summary: 'Metadata of the event(s), JSON.', helpValue: 'JSON' }),
    'expected-version': expectedVersionFlag('Append'),
  };

  async run(): Promise<AppendResult> {
    const { args, flags } = await this.parse(StreamAppend);
    const expected = expectedVersionOfFlag(flags['expected-version']);
    const metadata = flags.metadata === undefined ? undefined : jsonText(flags.metadata, '--metadata');
    const single = flags.data !== undefined || flags['data-file'] !== undefined;
    if (single && flags.type === undefined) throw Errors.cliUsage.create('--type is required with --data or --data-file', this.commandLine());
    if (!single && process.stdin.isTTY) {
      throw Errors.cliUsage.create('no events: give --type and --data (or --data-file), or events on standard input, one per line', this.commandLine());
    }
    const appender = new StreamAppender(await NodeClient.connect(this.connection(flags), this.chosenNode), args.stream, expected);
    let source = 'standard input';
    if (single) {
      source = flags.data === undefined ? String(flags['data-file']) : '--data';
      const dataText = flags.data === undefined ? fileDataText(await readDataFile(source), source) : jsonText(flags.data, '--data');
      await appender.add(batchEntry(String(flags.type), dataText, metadata));
    } else {
      let lineNumber = 0;
      for await (const line of createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
        lineNumber++;
        if (line.trim() !== '') await appender.add(lineEntry(line, lineNumber, flags.type, metadata));
      }
    }
    const result = checkSomething(await appender.finish(), source);
    const range = result.count === 1 ? `event ${result.firstEventNumber}` : `events ${result.firstEventNumber} to ${result.lastEventNumber}`;
    this.log(`appended ${result.count === 1 ? '1 event' : `${result.count} events`} to ${result.stream}: ${range}`);
    return result;
  }
}

async function readDataFile(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw Errors.clientEventInvalid.create(file, `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}); give the path of the data file`);
  }
}
