/**
 * The path, query and header parameters of the subscription routes, parsed at the edge with the
 * wire note's messages as coded 400s: the message count, message ids, the nack action, stopAt,
 * and who the consumer is.
 */
import type { FastifyRequest } from 'fastify';
import { Errors } from '../../../common/errors.js';
import { isUuid } from '../../../storage/log/uuid.js';
import type { ConsumerIdentity } from '../../subscriptions/consumers.js';
import type { NackAction } from '../../subscriptions/group.js';
import { decodeHeaderText } from '../header-text.js';
import { principalOf } from '../principal.js';

/** Messages one request may take at most, as the wire note says. */
export const MESSAGE_COUNT_MAX = 100;
/** Message ids one ack or nack may name. */
export const MESSAGE_IDS_MAX = 1000;
/** The header a consumer names itself with; without it the connection is the consumer. */
export const CONNECTION_NAME_HEADER = 'svc-connectionname';
const CONNECTION_NAME_LENGTH_MAX = 200;

export function messageCount(text: string | undefined): number {
  if (text === undefined) return 1;
  const value = /^\d{1,3}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 1 && value <= MESSAGE_COUNT_MAX)) {
    throw Errors.subscriptionParameterInvalid.create(`Message count must be an integer between 1 and ${MESSAGE_COUNT_MAX} 'count' ='${text}'`);
  }
  return value;
}

function messageId(text: string): string {
  const trimmed = text.trim();
  if (!isUuid(trimmed)) throw Errors.subscriptionMessageIdInvalid.create(text.length > 100 ? `${text.slice(0, 100)}…` : text);
  return trimmed.toLowerCase();
}

function single(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw Errors.subscriptionParameterInvalid.create(`give ?${name}= once`);
  return value;
}

/** The ids of `/ack/{id}` or of `?ids=a,b`; none when neither is there. */
export function messageIds(pathId: string | undefined, query: unknown): string[] {
  if (pathId !== undefined) return [messageId(pathId)];
  const text = single((query as { ids?: unknown }).ids, 'ids');
  if (text === undefined || text === '') return [];
  const ids = text.split(',');
  if (ids.length > MESSAGE_IDS_MAX) throw Errors.subscriptionParameterInvalid.create(`at most ${MESSAGE_IDS_MAX} ids at once; ack the rest in another request`);
  return ids.map(messageId);
}

const ACTIONS = new Map<string, NackAction>([['park', 'park'], ['retry', 'retry'], ['skip', 'skip'], ['stop', 'stop']]);

/**
 * `?action=`: Park, Retry, Skip or Stop, in any case (and Retyr, the reference's spelling, on the
 * single-message path). Absent or an unknown word means Retry, as the reference has it; a value
 * that is not a word at all (or is given twice) is refused.
 */
export function nackAction(query: unknown, singleMessage: boolean): NackAction {
  const text = single((query as { action?: unknown }).action, 'action');
  if (text === undefined || text === '') return 'retry';
  if (!/^[A-Za-z]{1,20}$/.test(text)) {
    throw Errors.subscriptionParameterInvalid.create(`action '${text.slice(0, 40)}' is not valid; use Park, Retry, Skip or Stop`);
  }
  const lowered = text.toLowerCase();
  if (singleMessage && lowered === 'retyr') return 'retry';
  return ACTIONS.get(lowered) ?? 'retry';
}

/** `?stopAt=N` of a replay: a parked stream event number (exclusive); all when absent. */
export function stopAtParam(query: unknown): number | undefined {
  const text = single((query as { stopAt?: unknown; stopat?: unknown }).stopAt, 'stopAt');
  if (text === undefined) return undefined;
  const value = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value)) throw Errors.subscriptionParameterInvalid.create(`stopAt '${text.slice(0, 40)}' must be an integer >= 0`);
  return value;
}

export function consumerIdentity(request: FastifyRequest): ConsumerIdentity {
  const { remoteAddress = 'unknown', remotePort = 0 } = request.raw.socket;
  const from = `${remoteAddress}:${remotePort}`;
  const header = request.headers[CONNECTION_NAME_HEADER];
  const named = typeof header === 'string' ? decodeHeaderText(header, 'Svc-ConnectionName').trim().slice(0, CONNECTION_NAME_LENGTH_MAX) : '';
  const username = principalOf(request)?.name ?? 'anonymous';
  return { key: named === '' ? `connection ${from}` : `named ${username} ${named}`, from, username, connectionName: named };
}
