/**
 * The persistent subscriptions API (`/subscriptions`), over the subscriptions service: groups
 * are created, changed and deleted by operators; users see (lists, info) the groups of the
 * streams they may read; consumers with the read right on the stream take messages (a
 * competing-consumer feed) and acknowledge them. Who may
 * manage groups is settled by the authentication hook; stream rights by the service.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { StreamsService } from '../../services/streams.js';
import type { SubscriptionsService } from '../../subscriptions/service.js';
import { principalOf } from '../principal.js';
import { resource } from '../routing.js';
import { Errors } from '../../../common/errors.js';
import { randomUUID } from 'node:crypto';
import { EntryUrls } from '../streams/entry.js';
import { encodeFeed } from '../streams/feed-codecs.js';
import * as headers from '../streams/headers.js';
import { MediaType, negotiate, sendAs, withCharset, type MediaTypeName } from '../streams/media-types.js';
import { EmbedLevel } from '../streams/read-params.js';
import { chooseType, embedOf } from '../streams/read-request.js';
import { baseUrl } from '../streams/urls.js';
import { wrap, xmlDocument } from '../../../common/xml-writer.js';
import { jsonChildren } from '../streams/xml-text.js';
import { competingFeed } from './competing-feed.js';
import { groupInfo, groupSummary } from './info.js';
import { pascalCased } from './pascal-case.js';
import { consumerIdentity, messageCount, messageIds, nackAction, stopAtParam } from './params.js';
import { settingsBody } from './settings-body.js';
import { groupUrl } from './urls.js';
import { readOffLoop } from '../../../storage/disk/cold-reads.js';
import { viewParkedRoute } from './view-parked.js';

export interface SubscriptionsPluginOptions {
  subscriptions: SubscriptionsService;
  streams: StreamsService;
}

/** Messages: the two competing-consumer feed types, XML first as clients of the protocol expect. */
const COMPETING_TYPES: readonly MediaTypeName[] = [MediaType.competingAtomXml, MediaType.competingAtomJson];
/** Lists, info and command results. */
const DOCUMENT_TYPES: readonly MediaTypeName[] = [MediaType.json, MediaType.textXml, MediaType.xml];

interface GroupParams {
  stream: string;
  group: string;
  count?: string;
  messageid?: string;
}

const paramsOf = (request: FastifyRequest) => request.params as GroupParams;

/** A JSON document, or XML with `root` as its root element and PascalCase elements, as the request asks. */
function sendDocument(request: FastifyRequest, reply: FastifyReply, root: string, document: unknown, itemName?: string): FastifyReply {
  const { type } = negotiate(request.headers.accept, (request.query as { format?: unknown }).format, DOCUMENT_TYPES);
  reply.header('cache-control', 'max-age=0, no-cache, must-revalidate');
  if (type === MediaType.json) return reply.type(withCharset(type)).send(JSON.stringify(document));
  const xml = pascalCased(document);
  const children = Array.isArray(xml)
    ? xml.map((item) => wrap(itemName ?? 'item', jsonChildren(item as Record<string, unknown>))).join('')
    : jsonChildren(xml as Record<string, unknown>);
  return reply.type(withCharset(type)).send(xmlDocument(root, children));
}

const result = () => ({ correlationId: randomUUID(), reason: '', result: 'Success' });

/**
 * Bodies are kept as text whatever their type: create and update read theirs as settings by
 * the Content-Type; acks and replays take no body, and whatever a client sends with them is not
 * read.
 */
function bodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
}

export async function subscriptionsRoutes(app: FastifyInstance, { subscriptions, streams }: SubscriptionsPluginOptions): Promise<void> {
  bodyParsers(app);
  const list = (stream?: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    const groups = subscriptions.listReadable(principalOf(request), stream);
    if (stream !== undefined && groups.length === 0) throw Errors.subscriptionNotFound.create(stream, '(any)');
    const base = baseUrl(request);
    return sendDocument(request, reply, 'subscriptions', groups.map((group) => groupSummary(group, base)), 'subscription');
  };
  resource(app, '/subscriptions', { GET: { handler: list() } });
  resource(app, '/subscriptions/:stream', { GET: { handler: async (request, reply) => list(paramsOf(request).stream)(request, reply) } });

  // Fires before the server waits for its requests to end: a waiting consumer is answered now,
  // as at its timeout, rather than holding the stop for up to its 600 seconds.
  const closing = new AbortController();
  app.addHook('preClose', async () => closing.abort());
  const consume = async (request: FastifyRequest, reply: FastifyReply) => consumeReply(subscriptions, streams, request, reply, closing.signal);
  resource(app, '/subscriptions/:stream/:group', {
    GET: { handler: consume },
    PUT: {
      handler: async (request, reply) => {
        const { stream, group } = paramsOf(request);
        await subscriptions.create(principalOf(request), stream, group, settingsBody(request));
        reply.code(201).header('Location', groupUrl(baseUrl(request), stream, group));
        return sendDocument(request, reply, 'result', result());
      },
    },
    POST: {
      handler: async (request, reply) => {
        const { stream, group } = paramsOf(request);
        await subscriptions.update(principalOf(request), stream, group, settingsBody(request));
        // As a create answers: clients take the group's URL from either.
        reply.header('Location', groupUrl(baseUrl(request), stream, group));
        return sendDocument(request, reply, 'result', result());
      },
    },
    DELETE: {
      handler: async (request, reply) => {
        const { stream, group } = paramsOf(request);
        await subscriptions.delete(principalOf(request), stream, group);
        return sendDocument(request, reply, 'result', result());
      },
    },
  });
  resource(app, '/subscriptions/:stream/:group/:count', { GET: { handler: consume } });
  resource(app, '/subscriptions/:stream/:group/info', {
    GET: {
      handler: async (request, reply) => {
        const { stream, group } = paramsOf(request);
        return sendDocument(request, reply, 'subscription', groupInfo(subscriptions.getReadable(principalOf(request), stream, group), baseUrl(request), subscriptions.now()));
      },
    },
  });

  const ack = async (request: FastifyRequest, reply: FastifyReply) => {
    const { stream, group, messageid } = paramsOf(request);
    subscriptions.ack(principalOf(request), stream, group, messageIds(messageid, request.query));
    return reply.code(202).send();
  };
  const nack = async (request: FastifyRequest, reply: FastifyReply) => {
    const { stream, group, messageid } = paramsOf(request);
    const ids = messageIds(messageid, request.query);
    const action = nackAction(request.query, messageid !== undefined);
    // Answered once a park is written, so a replay sent right after the reply finds the message.
    await subscriptions.nack(principalOf(request), stream, group, ids, action, consumerIdentity(request));
    return reply.code(202).send();
  };
  resource(app, '/subscriptions/:stream/:group/ack', { POST: { handler: ack } });
  resource(app, '/subscriptions/:stream/:group/ack/:messageid', { POST: { handler: ack } });
  resource(app, '/subscriptions/:stream/:group/nack', { POST: { handler: nack } });
  resource(app, '/subscriptions/:stream/:group/nack/:messageid', { POST: { handler: nack } });
  resource(app, '/subscriptions/:stream/:group/replayParked', {
    POST: {
      handler: async (request, reply) => {
        const { stream, group } = paramsOf(request);
        subscriptions.replayParked(stream, group, stopAtParam(request.query));
        return sendDocument(request, reply, 'result', result());
      },
    },
  });
  resource(app, '/subscriptions/viewparkedmessages/:stream/:group/:event/:direction/:count', { GET: viewParkedRoute(subscriptions, streams) });
  app.addHook('onClose', async () => subscriptions.close());
}

/** The consume path: messages checked out to the caller, held by a long poll when there are none. */
async function consumeReply(
  subscriptions: SubscriptionsService, streams: StreamsService, request: FastifyRequest, reply: FastifyReply, closing: AbortSignal,
): Promise<FastifyReply> {
  const { stream, group: groupName, count: countText } = paramsOf(request);
  const count = messageCount(countText);
  const { type } = chooseType(request, COMPETING_TYPES);
  const embed = embedOf(request, type, EmbedLevel.none);
  const group = subscriptions.get(stream, groupName);
  const resolveLinks = headers.resolveLinkTos(request, group.settings.resolveLinktos);
  const longPollSeconds = headers.longPollSeconds(request);
  const principal = principalOf(request);
  const identity = consumerIdentity(request);
  // Reading ahead, resolving and encoding the messages take the event loop: a turn while appends wait.
  const finishTurn = await streams.readTurn();
  try {
    await subscriptions.readAhead(stream, groupName);
    let delivery = subscriptions.consume(principal, stream, groupName, identity, count);
    if (delivery.messages.length === 0 && longPollSeconds !== undefined && !closing.aborted) {
      finishTurn();
      const deadline = Date.now() + longPollSeconds * 1000;
      const abort = new AbortController();
      const onClose = () => abort.abort();
      reply.raw.once('close', onClose);
      closing.addEventListener('abort', onClose, { once: true });
      try {
        while (delivery.messages.length === 0 && Date.now() < deadline && !abort.signal.aborted) {
          await delivery.group.waitForMessages(delivery.consumer, deadline - Date.now(), abort.signal);
          await subscriptions.readAhead(stream, groupName);
          delivery = subscriptions.consume(principal, stream, groupName, identity, count);
        }
      } finally {
        reply.raw.off('close', onClose);
        closing.removeEventListener('abort', onClose);
      }
    }
    const messages = await readOffLoop(() => delivery.messages.map((message) => ({
      id: message.id, retryCount: message.retryCount, resolved: streams.resolveEvent(principal, message.record, resolveLinks),
    })));
    const feed = competingFeed(new EntryUrls(baseUrl(request)), { stream, group: groupName, count, embed }, messages);
    reply.header('cache-control', 'max-age=0, no-cache, must-revalidate');
    return sendAs(reply, type, encodeFeed(type, feed));
  } finally {
    finishTurn();
  }
}
