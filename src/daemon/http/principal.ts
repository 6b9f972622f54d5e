/**
 * Who sent a request: set by the authentication hook (http/authentication.ts) once the request's
 * credentials are verified, read by the routes that pass it to the services. Absent for an
 * anonymous request.
 *
 * It is a fastify request decoration: fastify sets it in the request constructor, so every
 * request has the same shape and reading or setting it costs a property access (a side table
 * keyed by request cost a measurable share of a cached page read).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../services/stream-access.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** Declares the decoration; call on the root instance before any route is registered. */
export function decoratePrincipal(app: FastifyInstance): void {
  app.decorateRequest('principal', null);
}

export function setPrincipal(request: FastifyRequest, principal: Principal): void {
  request.principal = principal;
}

export function principalOf(request: FastifyRequest): Principal | undefined {
  return request.principal ?? undefined;
}
