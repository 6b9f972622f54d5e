/**
 * THE place where operator endpoints are authorized (admin commands, /info/options): every such
 * route runs `requireOperator` before its handler. There are no users yet, so every caller is
 * let through. When users land, this checks that the request's principal is in `$admins` or
 * `$ops` and otherwise throws the coded 401 (the reference never answers 403).
 */
import type { FastifyRequest } from 'fastify';

export async function requireOperator(_request: FastifyRequest): Promise<void> {
  // Authorization goes here (see above).
}
