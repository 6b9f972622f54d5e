/**
 * A reader without the right to a resource is told 401, never 406: content negotiation is
 * settled before the handlers read (so that nothing is read, or changed, only to be refused for
 * its format), which put the 406 ahead of the access check. When a request is about to be
 * answered 406, the error handler asks this check first and answers its denial instead.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { StreamsService } from '../services/streams.js';
import type { UsersService } from '../services/users.js';
import { principalOf } from './principal.js';

/** Throws the coded denial when the caller may not read what the request is about. */
export type ReadRightCheck = (request: FastifyRequest) => void;

declare module 'fastify' {
  interface FastifyInstance {
    readRightCheck: ReadRightCheck | null;
  }
}

/** Paths of the users API that name a user, and those that list them. */
const USER_PATH = /^\/users\/:login(?:\/|$)/;
const USERS_LIST = new Set(['/users', '/users/']);
/** Paths of reads whose right is the stream's metadata read right. */
const METADATA_PATH = /^\/streams\/:stream\/metadata(?:\/|$)/;

function readRightCheck(streams: StreamsService, users: UsersService): ReadRightCheck {
  return (request) => {
    const url = request.routeOptions.url ?? '';
    const { stream, login } = request.params as { stream?: unknown; login?: unknown };
    const principal = principalOf(request);
    if (typeof stream === 'string') streams.checkRead(principal, stream, METADATA_PATH.test(url));
    else if (typeof login === 'string' && USER_PATH.test(url) && login !== '$current') users.get(principal, login);
    else if (USERS_LIST.has(url)) users.list(principal);
  };
}

/** Gives the error handler (errors.ts) the check; every plugin registered later inherits it. */
export function checkRightsBeforeFormat(app: FastifyInstance, streams: StreamsService, users: UsersService): void {
  app.decorate('readRightCheck', readRightCheck(streams, users));
}

/** The denial `request`'s caller would get for reading its resource, if any. */
export function readDenial(request: FastifyRequest): Error | undefined {
  try {
    request.server.readRightCheck?.(request);
    return undefined;
  } catch (error) {
    return error as Error;
  }
}
