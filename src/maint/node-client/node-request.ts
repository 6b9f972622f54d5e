/**
 * One HTTP request to a running node's admin API, with HTTP Basic credentials. node:http and
 * node:https rather than fetch, so a private CA (--ca-file) can be trusted for this request alone.
 * Every way it can go wrong becomes a coded error that says what to fix; a request the node
 * refused is reported with the node's own code and message.
 */
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { Errors, reviveError } from '../../common/errors.js';
import { checkNodeUrl, type NodeConnection } from '../../common/node-connection.js';

export interface NodeReply {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** More than any reply of the admin API; a longer reply is refused unless the request allows more. */
const REPLY_BYTES_MAX = 64 * 1024;
/** Error codes of node:tls that mean the node's certificate was not accepted. */
const CERTIFICATE_REJECTED = /CERT|SELF_SIGNED|UNABLE_TO_|ERR_TLS_/;

/** `path` on the node of `url`, or the coded error that says how to write --url. */
export function nodeUrl(url: string, path: string): URL {
  return new URL(path, checkNodeUrl(url));
}

/** Reads --ca-file once; a client that makes several requests passes the text on. */
export async function readCaFile(file: string | undefined): Promise<string | undefined> {
  if (file === undefined) return undefined;
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw Errors.certFileUnreadable.create('--ca-file', file, code === 'ENOENT' ? 'the file does not exist' : String(code));
  }
}

export interface RequestOptions {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  /** The PEM text of --ca-file (readCaFile). */
  ca?: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as it is, with its media type: event data goes through byte for byte. */
  rawBody?: { text: string | Buffer; contentType: string };
  /** The media type asked for; application/json unless set. */
  accept?: string;
  /** More request headers (Svc-ExpectedVersion, Svc-LongPoll, ...). */
  headers?: Record<string, string>;
  /** The longest reply read, in bytes; a longer one is an unexpected reply. */
  replyBytesMax?: number;
  /** How long the node may take to answer; the connection's timeout unless set (a long poll waits longer). */
  timeoutMs?: number;
  /** What the node failed to do in time, for the timeout's advice. */
  timeoutAdvice?: string;
}

export function requestNode(connection: NodeConnection, options: RequestOptions): Promise<NodeReply> {
  const target = nodeUrl(connection.url, options.path);
  const credentials = Buffer.from(`${connection.username}:${connection.password}`).toString('base64');
  const payload = options.rawBody?.text ?? (options.body === undefined ? '' : JSON.stringify(options.body));
  const headers: Record<string, string | number> = {
    ...options.headers, authorization: `Basic ${credentials}`, 'content-length': Buffer.byteLength(payload), accept: options.accept ?? 'application/json',
  };
  if (payload.length > 0) headers['content-type'] = options.rawBody?.contentType ?? 'application/json';
  const replyBytesMax = options.replyBytesMax ?? REPLY_BYTES_MAX;
  const timeoutMs = options.timeoutMs ?? connection.timeoutMs;
  const requestOptions: https.RequestOptions = {
    method: options.method,
    headers,
    // One request: no pooled connection keeps the command alive after it.
    agent: false,
    ...(options.ca !== undefined && { ca: options.ca }),
  };
  return new Promise((resolve, reject) => {
    const request = (target.protocol === 'https:' ? https : http).request(target, requestOptions, (response) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes <= replyBytesMax) chunks.push(chunk);
        else response.destroy(Errors.clientUnexpectedReply.create(`the node at ${connection.url}`, `sent a reply longer than ${replyBytesMax} bytes`));
      });
      // Decoded once whole, so a character split between two chunks stays intact.
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: response.headers }));
      response.on('error', (error) => reject(connectionError(connection, error)));
    });
    request.setTimeout(timeoutMs, () => {
      request.destroy(Errors.clientTimeout.create(connection.url, timeoutMs / 1000,
        options.timeoutAdvice ?? 'the node accepted the connection but did not answer; check its log'));
    });
    request.on('error', (error) => reject(connectionError(connection, error)));
    request.end(payload);
  });
}

function connectionError(connection: NodeConnection, error: Error): Error {
  if (Errors.clientTimeout.is(error) || Errors.clientUnexpectedReply.is(error)) return error;
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const cause = code === '' ? error.message : `${code}: ${error.message}`;
  if (CERTIFICATE_REJECTED.test(code)) return Errors.clientTls.create(connection.url, cause);
  return Errors.clientUnreachable.create(connection.url, cause);
}

/** 401 is about the credentials; otherwise the node's coded error if it sent one this version knows. */
export function replyError(connection: NodeConnection, reply: NodeReply): Error {
  if (reply.status === 401) return Errors.clientUnauthorized.create(connection.url, connection.username);
  const coded = parseCodedBody(reply.body);
  const nodeError = coded && reviveError(coded.code, coded.message, { url: connection.url, status: reply.status });
  return nodeError ?? unexpectedReply(connection, reply);
}

export function unexpectedReply(connection: NodeConnection, reply: NodeReply): Error {
  return Errors.clientUnexpectedReply.create(`the node at ${connection.url}`, `answered ${reply.status}: ${reply.body.slice(0, 200) || '(no body)'}`);
}

function parseCodedBody(body: string): { code: string; message: string } | undefined {
  try {
    const parsed = JSON.parse(body) as { code?: unknown; message?: unknown };
    return typeof parsed.code === 'string' && typeof parsed.message === 'string' ? { code: parsed.code, message: parsed.message } : undefined;
  } catch {
    return undefined;
  }
}

/** The JSON body of a 200 reply, or the error it stands for. */
export function jsonReply<T>(connection: NodeConnection, reply: NodeReply): T {
  if (reply.status !== 200) throw replyError(connection, reply);
  try {
    return JSON.parse(reply.body) as T;
  } catch {
    throw unexpectedReply(connection, reply);
  }
}
