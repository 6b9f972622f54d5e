/**
 * Asks a node to reload its certificates over HTTP: `POST /admin/reloadconfig` with HTTP Basic
 * credentials. node:http and node:https rather than fetch, so a private CA (--ca-file) can be
 * trusted for this request alone. Every way it can go wrong becomes a coded error that says what
 * to fix; a reload the node refused is reported with the node's own code and message.
 */
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { Errors, reviveError } from '../../common/errors.js';
import type { CertReloadResult } from './result.js';

export interface HttpReloadOptions {
  /** The node's base URL, http:// or https://. */
  url: string;
  username: string;
  password: string;
  /** A PEM file of CA certificates to trust for https URLs, besides the system's. */
  caFile?: string;
  timeoutMs: number;
}

interface Reply {
  status: number;
  body: string;
}

const RELOAD_PATH = '/admin/reloadconfig';
/** More than any error body of a node; the rest of a longer reply is not read. */
const REPLY_BYTES_MAX = 64 * 1024;
/** Error codes of node:tls that mean the node's certificate was not accepted. */
const CERTIFICATE_REJECTED = /CERT|SELF_SIGNED|UNABLE_TO_|ERR_TLS_/;

export async function reloadOverHttp(options: HttpReloadOptions): Promise<CertReloadResult> {
  const target = parseUrl(options.url);
  const ca = options.caFile === undefined ? undefined : await readCa(options.caFile);
  const reply = await post(target, options, ca);
  if (reply.status === 200) return { via: 'http', url: options.url };
  throw replyError(options, reply);
}

function parseUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(RELOAD_PATH, url);
  } catch {
    throw Errors.optionInvalid.create('--url', `must be a URL such as http://127.0.0.1:2113, got ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw Errors.optionInvalid.create('--url', `must start with http:// or https://, got ${JSON.stringify(url)}`);
  }
  return parsed;
}

async function readCa(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw Errors.certFileUnreadable.create('--ca-file', file, code === 'ENOENT' ? 'the file does not exist' : String(code));
  }
}

function post(target: URL, options: HttpReloadOptions, ca: string | undefined): Promise<Reply> {
  const credentials = Buffer.from(`${options.username}:${options.password}`).toString('base64');
  const requestOptions: https.RequestOptions = {
    method: 'POST',
    headers: { authorization: `Basic ${credentials}`, 'content-length': 0 },
    // One request: no pooled connection keeps the command alive after it.
    agent: false,
    ...(ca !== undefined && { ca }),
  };
  return new Promise((resolve, reject) => {
    const request = (target.protocol === 'https:' ? https : http).request(target, requestOptions, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (body.length < REPLY_BYTES_MAX) body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      response.on('error', (error) => reject(connectionError(options, error)));
    });
    request.setTimeout(options.timeoutMs, () => {
      request.destroy(Errors.clientTimeout.create(options.url, options.timeoutMs / 1000,
        'the node accepted the connection but did not answer; check its log'));
    });
    request.on('error', (error) => reject(connectionError(options, error)));
    request.end();
  });
}

function connectionError(options: HttpReloadOptions, error: Error): Error {
  if (Errors.clientTimeout.is(error)) return error;
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const cause = code === '' ? error.message : `${code}: ${error.message}`;
  if (CERTIFICATE_REJECTED.test(code)) return Errors.clientTls.create(options.url, cause);
  return Errors.clientUnreachable.create(options.url, cause);
}

/** 401 is about the credentials; otherwise the node's coded error if it sent one this version knows. */
function replyError(options: HttpReloadOptions, reply: Reply): Error {
  if (reply.status === 401) return Errors.clientUnauthorized.create(options.url, options.username);
  const coded = parseCodedBody(reply.body);
  const nodeError = coded && reviveError(coded.code, coded.message, { url: options.url, status: reply.status });
  return nodeError ?? Errors.clientUnexpectedReply.create(`the node at ${options.url}`,
    `answered ${reply.status}: ${reply.body.slice(0, 200) || '(no body)'}`);
}

function parseCodedBody(body: string): { code: string; message: string } | undefined {
  try {
    const parsed = JSON.parse(body) as { code?: unknown; message?: unknown };
    return typeof parsed.code === 'string' && typeof parsed.message === 'string' ? { code: parsed.code, message: parsed.message } : undefined;
  } catch {
    return undefined;
  }
}
