/**
 * The users API (`/users`), in the wire note's shapes: `{"data":…,"success":true,"error":"Success"}`
 * on success, and on failure the usual coded error body plus `"success":false` and the error's
 * name. Requests and replies are JSON, or XML (users-xml.ts) as the Content-Type and Accept say;
 * error bodies are JSON either way. Who may do what is the users service's business; this file
 * only translates.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { SvcError } from '../../common/errors.js';
import type { UsersService, UserView } from '../services/users.js';
import { errorHandlerWith } from './errors.js';
import { negotiate, withCharset } from './streams/media-types.js';
import { isXmlType, parseUsersXml, USERS_TYPES, usersXml } from './users-xml.js';
import { principalOf } from './principal.js';
import { resource } from './routing.js';
import { baseUrl } from './streams/urls.js';
import { newPasswordOf, newUserOf, passwordChangeOf, userChangeOf } from './users-body.js';

export interface UsersRoutesOptions {
  users: UsersService;
}

/** The `{login}` of the route; find-my-way has decoded it. */
const loginOf = (request: FastifyRequest) => (request.params as { login: string }).login;

const CURRENT = '$current';

const ERROR_NAMES = new Map([[401, 'Unauthorized'], [404, 'NotFound'], [408, 'TryAgain'], [409, 'Conflict']]);

function errorFields(error: SvcError): Record<string, unknown> {
  return { success: false, error: ERROR_NAMES.get(error.statusCode) ?? 'Error' };
}

function userUrl(request: FastifyRequest, login: string): string {
  return `${baseUrl(request)}/users/${encodeURIComponent(login)}`;
}

function linksOf(request: FastifyRequest, user: UserView): Array<{ href: string; rel: string }> {
  const url = userUrl(request, user.loginName);
  const toggle = user.disabled ? 'enable' : 'disable';
  return [
    { href: `${url}/command/reset-password`, rel: 'reset-password' },
    { href: `${url}/command/change-password`, rel: 'change-password' },
    { href: url, rel: 'edit' },
    { href: url, rel: 'delete' },
    { href: `${url}/command/${toggle}`, rel: toggle },
  ];
}

// The last update time is not tracked per user; the wire note's clients expect the field as null.
const document = (user: UserView) => ({ ...user, dateLastUpdated: null });
const linked = (request: FastifyRequest, user: UserView) => ({ ...document(user), links: linksOf(request, user) });
const success = (fields: Record<string, unknown>) => ({ ...fields, success: true, error: 'Success' });

export const usersRoutes: FastifyPluginAsync<UsersRoutesOptions> = async (app, { users }) => {
  app.setErrorHandler(errorHandlerWith(errorFields));
  // The users codecs are JSON and XML only: a body sent as text/plain (which fastify would parse as
  // a string) gets the 415 of every other unsupported type, naming the Content-Type to fix.
  app.removeContentTypeParser('text/plain');
  // An empty body of any type is no body (empty-bodies.ts): commands such as enable come so.
  app.addContentTypeParser(['text/xml', 'application/xml'], { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseUsersXml(body as string));
    } catch (error) {
      done(error as Error);
    }
  });
  // The reply's type is settled before the handler runs, so that a change is never made and then refused with a 406.
  const replyType = (request: FastifyRequest) => negotiate(request.headers.accept, (request.query as { format?: unknown }).format, USERS_TYPES).type;
  app.addHook('preHandler', (request, _reply, done) => {
    try {
      replyType(request);
      done();
    } catch (error) {
      done(error as Error);
    }
  });
  app.addHook('preSerialization', (request, reply, payload, done) => {
    // Error bodies stay JSON; a success reply was negotiated in preHandler already.
    const type = reply.statusCode < 400 ? replyType(request) : undefined;
    if (type !== undefined && isXmlType(type)) reply.type(withCharset(type)).serializer((document) => usersXml(document as Record<string, unknown>));
    done(null, payload);
  });

  const list = async (request: FastifyRequest) => success({ data: users.list(principalOf(request)).map((user) => linked(request, user)) });
  const create = async (request: FastifyRequest, reply: FastifyReply) => {
    const user = newUserOf(request.body);
    await users.create(principalOf(request), user);
    return reply.code(201).header('Location', userUrl(request, user.loginName)).send(success({ loginName: user.loginName }));
  };
  for (const url of ['/users', '/users/']) resource(app, url, { GET: { handler: list }, POST: { handler: create } });
  const current = async (request: FastifyRequest) => success({ data: document(users.current(principalOf(request))) });
  resource(app, '/users/$current', { GET: { handler: current } });

  resource(app, '/users/:login', {
    GET: {
      // `/users/%24current` reaches this route (the router matches static paths undecoded) and means `$current`.
      handler: async (request: FastifyRequest) => loginOf(request) === CURRENT
        ? current(request)
        : success({ data: linked(request, users.get(principalOf(request), loginOf(request))) }),
    },
    PUT: {
      handler: async (request: FastifyRequest) => {
        await users.update(principalOf(request), loginOf(request), userChangeOf(request.body));
        return success({ loginName: loginOf(request) });
      },
    },
    DELETE: {
      handler: async (request: FastifyRequest) => {
        await users.delete(principalOf(request), loginOf(request));
        return success({ loginName: loginOf(request) });
      },
    },
  });

  /** A command on one user: it answers with the login name. */
  const command = (run: (request: FastifyRequest) => Promise<void>) => async (request: FastifyRequest) => {
    await run(request);
    return success({ loginName: loginOf(request) });
  };
  for (const [name, disabled] of [['enable', false], ['disable', true]] as const) {
    const toggle = { handler: command((request) => users.setDisabled(principalOf(request), loginOf(request), disabled)) };
    // PUT as the reference lists it, POST as clients of the wire protocol send it.
    resource(app, `/users/:login/command/${name}`, { PUT: toggle, POST: toggle });
  }
  resource(app, '/users/:login/command/reset-password', {
    POST: { handler: command((request) => users.resetPassword(principalOf(request), loginOf(request), newPasswordOf(request.body))) },
  });
  resource(app, '/users/:login/command/change-password', {
    POST: {
      handler: command((request) => {
        const { currentPassword, newPassword } = passwordChangeOf(request.body);
        return users.changePassword(principalOf(request), loginOf(request), currentPassword, newPassword, request.raw.socket.remoteAddress);
      }),
    },
  });
};
