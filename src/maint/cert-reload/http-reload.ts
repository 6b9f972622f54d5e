/**
 * Asks a node to reload its certificates over HTTP: `POST /admin/reloadconfig` with HTTP Basic
 * credentials (node-client/node-request.ts). A reload the node refused is reported with the
 * node's own code and message.
 */
import type { NodeConnection } from '../../common/node-connection.js';
import { nodeUrl, readCaFile, replyError, requestNode } from '../node-client/node-request.js';
import type { CertReloadResult } from './result.js';

export type HttpReloadOptions = NodeConnection;

const RELOAD_PATH = '/admin/reloadconfig';

export async function reloadOverHttp(options: HttpReloadOptions): Promise<CertReloadResult> {
  // A wrong --url is reported before anything is read.
  nodeUrl(options.url, RELOAD_PATH);
  const ca = await readCaFile(options.caFile);
  const reply = await requestNode(options, { method: 'POST', path: RELOAD_PATH, ...(ca !== undefined && { ca }) });
  // A node serves HTTPS only when it has certificates: one that answers plain HTTP had none to reload.
  if (reply.status === 200) return { via: 'http', url: options.url, result: nodeUrl(options.url, '/').protocol === 'https:' ? 'reloaded' : 'nothing to reload' };
  throw replyError(options, reply);
}
