/**
 * A real node in the test process: a real engine in a temp directory and the real fastify app
 * listening on port 0. Closed (app, then engine) at teardown.
 */
import type { Test } from 'tap';
import pino from 'pino';
import { buildApp } from '../../src/daemon/http/app.js';
import { NodeInfo } from '../../src/daemon/services/node-info.js';
import { allowAllAccess } from '../../src/daemon/services/stream-access.js';
import { StreamsService } from '../../src/daemon/services/streams.js';
import type { Engine } from '../../src/storage/engine.js';
import type { EngineOptions } from '../../src/storage/engine-options.js';
import { openEngine, tempDirectory } from './engine.js';

export interface TestNode {
  url: string;
  engine: Engine;
  streams: StreamsService;
}

export async function startNode(t: Test, overrides: Partial<EngineOptions> = {}): Promise<TestNode> {
  // Registered first so that it runs first: the app stops before its engine closes.
  let app: ReturnType<typeof buildApp> | undefined;
  t.teardown(async () => app?.close());
  const engine = await openEngine(tempDirectory(t), overrides);
  const streams = new StreamsService(engine, allowAllAccess);
  const nodeInfo = new NodeInfo('0.0.0-test', { projections: false, userManagement: false, atomPub: true }, { type: 'internal', properties: null }, () => 'leader');
  app = buildApp({ logger: pino({ level: 'silent' }), nodeInfo, nodeState: () => 'leader', streams });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, engine, streams };
}

/** A raw single-event append with the usual headers. */
export function postEvent(url: string, body: string | Buffer, headers: Record<string, string>): Promise<Response> {
  return fetch(url, { method: 'POST', body, headers, redirect: 'manual' });
}
