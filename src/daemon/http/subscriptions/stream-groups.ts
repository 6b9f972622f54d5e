/**
 * The subscription groups of a stream as the streams API names them in a stream's description
 * document. The root instance is given a lookup, so the streams plugin can name them without
 * depending on the subscriptions plugin (a node without subscriptions names none).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isSvcError } from '../../../common/errors.js';
import type { Principal } from '../../services/stream-access.js';
import type { SubscriptionsService } from '../../subscriptions/service.js';
import { principalOf } from '../principal.js';

declare module 'fastify' {
  interface FastifyInstance {
    subscriptionGroupsOf?: (principal: Principal | undefined, stream: string) => readonly string[];
  }
}

/** Offers the groups of `subscriptions` to every plugin of `app`; call before they are registered. */
export function offerSubscriptionGroups(app: FastifyInstance, subscriptions: SubscriptionsService): void {
  app.decorate('subscriptionGroupsOf', (principal: Principal | undefined, stream: string) => {
    try {
      return subscriptions.listReadable(principal, stream).map((group) => group.definition.group);
    } catch (error) {
      // A caller who may not read the stream learns nothing of its groups.
      if (isSvcError(error) && error.statusCode === 401) return [];
      throw error;
    }
  });
}

/** The names of the groups of `stream` the caller may see; none on a node without subscriptions. */
export function subscriptionGroupsOf(request: FastifyRequest, stream: string): readonly string[] {
  return request.server.subscriptionGroupsOf?.(principalOf(request), stream) ?? [];
}
