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

/** The reply of the request this connection is receiving, once its headers have arrived. */
function currentReply(socket: Socket): http.ServerResponse | null | undefined {
  return (socket as Socket & { _httpMessage?: http.ServerResponse | null })._httpMessage;
}

/** Answers `error` on the connection itself and closes it; a connection already replying is just closed. */
export function answerAndClose(socket: Socket, error: SvcError): void {
  // A reply already under way on this connection (a pipelined request) cannot be followed by another.
  if (!socket.writable || currentReply(socket)?.headersSent === true) {
    socket.destroy();
    return;
  }
  socket.end(clientErrorResponse(error), () => socket.destroy());
}

export interface RequestTimeouts {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

/** fastify's clientErrorHandler; the timeouts in force are for the 408's message. */
export function clientErrorHandler(logger: FastifyBaseLogger, timeouts: RequestTimeouts) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    // A reset connection has nobody to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // Node's request timeout and header timeout are one error; a request whose headers arrived
    // has its reply object, and then it was the body that was late.
    const svcError = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && currentReply(socket)
      ? Errors.httpBodyTimeout.create(`the whole request must arrive within ${timeouts.requestTimeoutMs} ms (--http-request-timeout-ms)`)
      : toSvcError(error, timeouts.headersTimeoutMs);
    logger.debug({ code: svcError.code, parserCode: error.code }, 'request rejected by the HTTP parser');
    answerAndClose(socket, svcError);
  };
}
