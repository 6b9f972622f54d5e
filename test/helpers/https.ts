/**
 * HTTPS requests for the TLS tests, with node:https so a test can trust its own CA, keep a
 * connection open across requests, and see which certificate the node presented.
 */
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { ADMIN_AUTH } from './auth.js';

/** What requests to the node are sent: the default admin user's credentials. */
export const adminHeaders = { authorization: ADMIN_AUTH };

export interface HttpsReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** The leaf the node presented on the connection that carried the request. */
  fingerprint256: string;
  /** True when the request went over a connection an earlier request had opened. */
  reusedSocket: boolean;
}

export interface HttpsRequestOptions {
  ca: string | string[];
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** A keep-alive agent to send several requests over one connection. */
  agent?: https.Agent;
  /** A client certificate and its key, PEM, to present to the node. */
  cert?: string;
  key?: string;
}

export function httpsRequest(url: string, options: HttpsRequestOptions): Promise<HttpsReply> {
  return new Promise((resolve, reject) => {
    const request = https.request(url, {
      method: options.method ?? 'GET', headers: options.headers, ca: options.ca, agent: options.agent, cert: options.cert, key: options.key,
    }, (response) => {
      const socket = response.socket as tls.TLSSocket;
      const fingerprint256 = socket.getPeerCertificate().fingerprint256;
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({
        status: response.statusCode ?? 0, headers: response.headers, body, fingerprint256, reusedSocket: request.reusedSocket,
      }));
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

/** One request per connection, over a connection only it uses. */
export function keepAliveAgent(): https.Agent {
  return new https.Agent({ keepAlive: true, maxSockets: 1 });
}

export interface PeerCertificate {
  fingerprint256: string;
  /** Whether it verified against the given CAs, for 127.0.0.1 as localhost. */
  authorized: boolean;
}

/** The certificate a new TLS connection to 127.0.0.1:`port` is offered; the connection is closed again. */
export function peerCertificate(port: number, ca: string[]): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', ca, rejectUnauthorized: false }, () => {
      const { fingerprint256 } = socket.getPeerCertificate();
      resolve({ fingerprint256, authorized: socket.authorized });
      socket.end();
    });
    socket.on('error', reject);
  });
}
