/**
 * A node for the redaction crash test, as a child process: the real engine on argv[2] with the
 * redaction socket on <db>/svcdb.sock, SIGKILLing itself right after the chunk-switch step named
 * in argv[3]. Prints "ready" once the socket listens.
 */
import { join } from 'node:path';
import pino from 'pino';
import { RedactionService } from '../../src/daemon/redaction/redaction-service.js';
import { RedactionSocket } from '../../src/daemon/redaction/socket-server.js';
import { SOCKET_FILE_NAME } from '../../src/storage/layout.js';
import { Engine } from '../../src/storage/engine.js';
import { engineOptions } from './engine.js';

const [directory, killAfter] = process.argv.slice(2) as [string, string];
const options = engineOptions(directory);
const engine = await Engine.open(options);
const logger = pino({ level: 'silent' });
const service = new RedactionService(engine, options.dbPath, logger, (step) => {
  process.stdout.write(`step ${step}\n`);
  if (step === killAfter) process.kill(process.pid, 'SIGKILL');
});
await RedactionSocket.start(join(options.dbPath, SOCKET_FILE_NAME), service, logger);
process.stdout.write('ready\n');
