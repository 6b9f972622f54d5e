/**
 * Another node of this deployment, recognised by its TLS client certificate, the reference's
 * rule for nodes: the certificate verified against this node's trusted roots when the connection
 * was made, and its common name is the one of this node's own certificate. Such a peer needs no
 * password; it is let in where nodes talk to each other (the replication endpoint).
 */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Principal } from '../services/stream-access.js';

/** Who a node admitted by its certificate is, for whatever reads the principal. */
export const NODE_PRINCIPAL: Principal = Object.freeze({ name: '$node', groups: Object.freeze([]) });

/** True when `socket` is TLS and its peer presented a verified certificate with common name `commonName`. */
export function isNodePeer(socket: Socket, commonName: string | undefined): boolean {
  if (!commonName) return false;
  const tls = socket as Partial<TLSSocket>;
  // Unverified certificates are accepted by the handshake (a client needs none) and decided here.
  if (tls.encrypted !== true || tls.authorized !== true || tls.getPeerCertificate === undefined) return false;
  const peerName: unknown = tls.getPeerCertificate().subject?.CN;
  return peerName === commonName;
}
