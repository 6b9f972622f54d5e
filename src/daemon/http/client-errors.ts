/**
 * Requests Node's HTTP parser refuses before fastify sees them (a malformed request line or
 * header, a smuggling attempt, headers that are too large, no request in time) get the same
 * coded JSON body as every other error, with the status that fits, and their connection is
 * closed: after a parse error the rest of the bytes cannot be trusted to start a request.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { Errors, type SvcError } from '../../common/errors.js';

/** What the parser's error codes mean to the client that sent the request. */
const PARSE_ERRORS = new Map<string, string>([
  ['HPE_INVALID_METHOD', 'the request line has no known method; send METHOD /path HTTP/1.1'],
  ['HPE_INVALID_URL', 'the request target is not a valid path'],
  ['HPE_INVALID_VERSION', 'the request line is malformed; send METHOD /path HTTP/1.1'],
  ['HPE_INVALID_CONSTANT', 'the request line is malformed; send METHOD /path HTTP/1.1'],
  ['HPE_INVALID_HEADER_TOKEN', 'a header name or value has a character headers may not carry'],
  ['HPE_INVALID_CONTENT_LENGTH', 'Content-Length must be one non-negative integer'],
  ['HPE_UNEXPECTED_CONTENT_LENGTH', 'the request has both Transfer-Encoding and Content-Length; send only one of them'],
  ['HPE_INVALID_TRANSFER_ENCODING', 'Transfer-Encoding must end with chunked; send chunked or a Content-Length'],
  ['HPE_INVALID_CHUNK_SIZE', 'the chunked body is malformed'],
  ['HPE_CHUNK_EXTENSIONS_OVERFLOW', 'the chunked body is malformed'],
  ['HPE_CR_EXPECTED', 'a line of the request does not end with CRLF'],
  ['HPE_LF_EXPECTED', 'a line of the request does not end with CRLF'],
]);

function toSvcError(error: NodeJS.ErrnoException, headersTimeoutMs: number): SvcError {
  const code = error.code ?? '';
  if (code === 'HPE_HEADER_OVERFLOW') return Errors.httpHeadersTooLarge.create(http.maxHeaderSize);
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return Errors.httpRequestTimeout.create(headersTimeoutMs);
  return Errors.httpRequestInvalid.create(PARSE_ERRORS.get(code) ?? `the request is not valid HTTP/1.1 (${code || 'unreadable'})`);
}

/** The whole reply, written on the socket itself: no request object exists for it. */
export function clientErrorResponse(error: SvcError): string {
  const body = JSON.stringify({ code: error.code, message: error.message });
  return `HTTP/1.1 ${error.statusCode} ${http.STATUS_CODES[error.statusCode] ?? 'Error'}\r\n`
    + 'Content-Type: application/json; charset=utf-8\r\n'
    + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** fastify's clientErrorHandler; `headersTimeoutMs` is the timeout in force, for the 408's message. */
export function clientErrorHandler(logger: FastifyBaseLogger, headersTimeoutMs: number) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    // A reset connection has nobody to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const svcError = toSvcError(error, headersTimeoutMs);
    logger.debug({ code: svcError.code, parserCode: error.code }, 'request rejected by the HTTP parser');
    // A reply already under way on this connection (a pipelined request) cannot be followed by another.
    const responding = (socket as Socket & { _httpMessage?: http.ServerResponse | null })._httpMessage?.headersSent === true;
    if (!socket.writable || responding) {
      socket.destroy();
      return;
    }
    socket.end(clientErrorResponse(svcError), () => socket.destroy());
  };
}
