/**
 * What an error reply carries besides its JSON body: the reason phrase clients of the wire
 * protocol look for, and headers such as Svc-CurrentVersion on a wrong expected version and
 * Retry-After on a refusal that passes.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Errors, type SvcError } from '../../common/errors.js';

const CHALLENGE = 'Basic realm="svcdb", charset="UTF-8"';
// The web console asks for credentials with its own form: a scheme browsers do not know keeps
// them from opening their login dialog over it when a request is refused.
const SCRIPT_CHALLENGE = 'X-Basic realm="svcdb", charset="UTF-8"';

const reasons = new Map<string, string>([
  [Errors.wrongExpectedVersion.code, 'Wrong expected EventNumber'],
  [Errors.streamDeleted.code, 'Stream deleted'],
  [Errors.streamNotFound.code, 'Not Found'],
  [Errors.eventNotFound.code, 'Not Found'],
  [Errors.httpMediaType.code, 'Invalid or missing Content-Type'],
  [Errors.httpNotAcceptable.code, 'Requested URI is not available in requested format'],
  [Errors.httpMethodNotAllowed.code, 'Method Not Allowed'],
  [Errors.eventTooLarge.code, 'Too large events received'],
  [Errors.eventsTooLarge.code, 'Too large events received'],
  [Errors.httpBodyTooLarge.code, 'Too large events received'],
]);

/** A request made by a page's script, which marks itself the way script libraries do. */
function fromScript(request: FastifyRequest): boolean {
  return request.headers['x-requested-with'] === 'XMLHttpRequest';
}

export function decorateError(request: FastifyRequest, reply: FastifyReply, error: SvcError): void {
  let reason = reasons.get(error.code);
  // Reads of a hard-deleted stream say "Deleted"; writes say "Stream deleted".
  if (Errors.streamDeleted.is(error) && (request.method === 'GET' || request.method === 'HEAD')) reason = 'Deleted';
  if (reason) reply.raw.statusMessage = reason;
  if (Errors.wrongExpectedVersion.is(error)) reply.header('Svc-CurrentVersion', String(error.details.current));
  const { retryAfterSeconds } = error.details;
  if (typeof retryAfterSeconds === 'number') reply.header('Retry-After', String(retryAfterSeconds));
  // Every denial asks for credentials: svcdb answers 401, never 403.
  if (error.statusCode === 401) reply.header('WWW-Authenticate', fromScript(request) ? SCRIPT_CHALLENGE : CHALLENGE);
}
