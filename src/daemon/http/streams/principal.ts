/**
 * Who sent a request. Requests are anonymous until users and authentication exist; the security
 * work sets the principal in an onRequest hook and this is where routes read it.
 */
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../services/stream-access.js';

const principals = new WeakMap<FastifyRequest, Principal>();

export function setPrincipal(request: FastifyRequest, principal: Principal): void {
  principals.set(request, principal);
}

export function principalOf(request: FastifyRequest): Principal | undefined {
  return principals.get(request);
}
