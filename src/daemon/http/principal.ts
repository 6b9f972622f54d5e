/**
 * Who sent a request: set by the authentication hook (http/authentication.ts) once the request's
 * credentials are verified, read by the routes that pass it to the services. Absent for an
 * anonymous request.
 */
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../services/stream-access.js';

const principals = new WeakMap<FastifyRequest, Principal>();

export function setPrincipal(request: FastifyRequest, principal: Principal): void {
  principals.set(request, principal);
}

export function principalOf(request: FastifyRequest): Principal | undefined {
  return principals.get(request);
}
