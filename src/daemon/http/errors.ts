/**
 * The one place an error becomes an HTTP reply: status from the registry, body
 * `{"code":"SVCDB_ERR_…","message":"…"}`. Errors that are not declared in the registry are bugs
 * or environment failures: the client gets SVCDB_ERR_INTERNAL with the request id, and the log
 * gets the details.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Errors, isSvcError, summaryOf, type SvcError } from '../../common/errors.js';
import { STREAM_NAME_BYTES_MAX } from '../../storage/streams/request-checks.js';
import { decorateError } from './error-decorations.js';
import { readDenial } from './rights-before-format.js';

export interface ErrorBody {
  code: string;
  message: string;
}

/** Fields a resource adds to its error bodies (the users API's `success` and `error`). */
export type ErrorBodyExtension = (error: SvcError) => Record<string, unknown>;

/**
 * Storage and index errors name files and carry the system's error text, which are the
 * operator's business: the client gets what the error means for its request, the log the rest.
 */
const LOG_ONLY_MESSAGE_PREFIXES = ['SVCDB_ERR_STORAGE_', 'SVCDB_ERR_INDEX_'];

/** The message a client is shown for `error`. */
export function clientMessage(error: SvcError): string {
  if (!LOG_ONLY_MESSAGE_PREFIXES.some((prefix) => error.code.startsWith(prefix))) return error.message;
  return `${summaryOf(error.code) ?? 'the database failed'}; the server log has the details`;
}

export function sendError(reply: FastifyReply, error: SvcError, extend?: ErrorBodyExtension): FastifyReply {
  decorateError(reply.request, reply, error);
  const body: ErrorBody = { code: error.code, message: clientMessage(error), ...extend?.(error) };
  return reply.code(error.statusCode).type('application/json; charset=utf-8').send(body);
}

export function errorHandler(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return handleError(error, request, reply);
}

/** An error handler whose bodies carry `extend`'s fields too, for a plugin's own routes. */
export function errorHandlerWith(extend: ErrorBodyExtension) {
  return (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply => handleError(error, request, reply, extend);
}

/** Fastify routes a request before it parses the body: a body's faults never hide a wrong path or method. */
function routingError(request: FastifyRequest, reply: FastifyReply): SvcError | undefined {
  if (request.is404) return Errors.httpNotFound.create(request.method, request.url);
  const allowed = (request.routeOptions.config as { methodsAllowed?: string } | undefined)?.methodsAllowed;
  if (allowed === undefined) return undefined;
  reply.header('Allow', `${allowed}, OPTIONS`).header('Access-Control-Allow-Methods', `${allowed}, OPTIONS`);
  return Errors.httpMethodNotAllowed.create(request.method, allowed);
}

/** A 406 goes to a caller who may read the resource; anyone else gets the denial (rights-before-format.ts). */
function deniedBeforeFormat(error: SvcError, request: FastifyRequest): SvcError {
  if (!Errors.httpNotAcceptable.is(error)) return error;
  const denial = readDenial(request);
  return denial !== undefined && isSvcError(denial) && denial.statusCode === 401 ? denial : error;
}

function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply, extend?: ErrorBodyExtension): FastifyReply {
  const svcError = routingError(request, reply) ?? deniedBeforeFormat(toSvcError(error, request), request);
  // A stopping node refusing requests is expected, not a failure worth an error line each.
  if (svcError.statusCode >= 500 && svcError.code !== Errors.nodeShuttingDown.code) {
    request.log.error({ err: error, code: svcError.code, url: request.url, method: request.method }, 'request failed');
  } else {
    request.log.debug({ code: svcError.code, url: request.url, method: request.method }, 'request rejected');
  }
  return sendError(reply, svcError, extend);
}

/** The longest a path is quoted back in an error message. */
const QUOTED_PATH_MAX = 200;

/**
 * Errors fastify meets before routing (a path that is not valid percent-encoding, a parameter
 * longer than the router takes): answered here, coded like every other error, instead of with
 * fastify's own uncoded body.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = request.raw.url ?? '';
  const quoted = path.length > QUOTED_PATH_MAX ? `${path.slice(0, QUOTED_PATH_MAX)}…` : path;
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return sendError(reply, Errors.httpPathInvalid.create(quoted, 'the path is not valid percent-encoding; encode "%" as %25'));
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return sendError(reply, Errors.httpPathInvalid.create(quoted, `a path segment is longer than ${STREAM_NAME_BYTES_MAX} bytes can be when percent-encoded`));
    default:
      return sendError(reply, Errors.httpRequestInvalid.create(error.message));
  }
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(reply, Errors.httpNotFound.create(request.method, request.url));
}

function toSvcError(error: FastifyError | Error, request: FastifyRequest): SvcError {
  if (isSvcError(error)) return error;
  if (isFastifyClientError(error)) return fromFastifyClientError(error, request);
  return Errors.internal.create(request.id);
}

/** fastify's own request errors (body parsing, validation): safe to describe to the client. */
function isFastifyClientError(error: FastifyError | Error): error is FastifyError {
  const { code, statusCode } = error as Partial<FastifyError>;
  return typeof code === 'string' && code.startsWith('FST_')
    && typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500;
}

function fromFastifyClientError(error: FastifyError, request: FastifyRequest): SvcError {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return Errors.httpBodyTooLarge.create(request.routeOptions.bodyLimit ?? 0);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return Errors.httpMediaType.create(request.headers['content-type'] ?? '');
    default:
      return Errors.httpRequestInvalid.create(error.message);
  }
}
