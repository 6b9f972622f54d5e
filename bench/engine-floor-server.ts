/**
 * A floor for the append benchmark: node's own http module around the same storage engine, with
 * none of the node's HTTP layer (no framework, authentication, ACLs, hooks or header checks).
 * What it reaches is about the most any HTTP front end written in Node can get from one core
 * for fsynced single-event appends. Prints `{"port":N}` once listening.
 */
import { createServer } from 'node:http';
import { join } from 'node:path';
import { Engine } from '../src/storage/engine.js';

const directory = process.argv[2];
if (!directory) throw new Error('usage: engine-floor-server <directory>');
const engine = await Engine.open({ dbPath: join(directory, 'db'), indexPath: join(directory, 'index') });

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const stream = (request.url ?? '/').split('/')[2] ?? 'floor';
    const event = {
      eventId: String(request.headers['svc-eventid']), eventType: String(request.headers['svc-eventtype']),
      data: Buffer.concat(chunks), metadata: Buffer.alloc(0), isJson: true,
    };
    engine.append(stream, -2, [event]).then((result) => {
      response.writeHead(201, { location: `/streams/${stream}/${result.firstEventNumber}`, 'content-length': '0' }).end();
    }, (error: Error) => {
      response.writeHead(400, { 'content-type': 'text/plain' }).end(error.message);
    });
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => void engine.close().then(() => process.exit(0)));
});
