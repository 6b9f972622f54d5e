/**
 * The ceiling for the HTTP benchmarks: a fastify hello-world route in a process of its own,
 * measured by the same load generator as the node. Prints `{"port":N}` once listening.
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/hello', async () => ({ hello: 'world' }));
// The same for a POST with a body, to tell the load generator's own cost from the node's.
app.post('/hello', async (_request, reply) => reply.code(201).send(''));
void app.listen({ host: '127.0.0.1', port: 0 }).then(() => {
  const address = app.server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
});
