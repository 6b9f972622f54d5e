/**
 * The request headers of the streams API, each parsed once with a coded error that names the
 * header, their bytes read as UTF-8. The reference's product-prefixed names are spelled with our
 * `Svc-` prefix.
 */
import type { FastifyRequest } from 'fastify';
import { Errors } from '../../../common/errors.js';
import { parseInt64 } from '../../../storage/streams/stream-metadata.js';
import { isNilUuid, isUuid } from '../../../storage/log/uuid.js';
import { headerText } from '../header-text.js';

export const Header = {
  expectedVersion: 'Svc-ExpectedVersion',
  eventType: 'Svc-EventType',
  eventId: 'Svc-EventId',
  hardDelete: 'Svc-HardDelete',
  longPoll: 'Svc-LongPoll',
  resolveLinkTos: 'Svc-ResolveLinkTos',
  requireLeader: 'Svc-RequireLeader',
  requireMaster: 'Svc-RequireMaster',
  requiresMaster: 'Svc-RequiresMaster',
  currentVersion: 'Svc-CurrentVersion',
  position: 'Svc-Position',
} as const;

/** Svc-LongPoll may hold a request at most this long. */
export const LONG_POLL_SECONDS_MAX = 600;

/** -2 (any) when absent; -1, -4 or an event number otherwise. */
export function expectedVersion(request: FastifyRequest): number {
  const text = headerText(request, Header.expectedVersion);
  if (text === undefined) return -2;
  // Exact to 64 bits: a version above 2^53 - 1 is past every event, and never matches.
  const value = parseInt64(text.trim());
  if (value === undefined || value < -4 || value === -3) {
    throw Errors.httpHeaderInvalid.create('Svc-ExpectedVersion', `'${text}'; use -2 (any), -1 (no stream), -4 (stream exists) or an event number`);
  }
  return value;
}

function booleanHeader(request: FastifyRequest, name: string): boolean | undefined {
  const text = headerText(request, name);
  if (text === undefined) return undefined;
  const lowered = text.trim().toLowerCase();
  if (lowered !== 'true' && lowered !== 'false') throw Errors.httpHeaderInvalid.create(name, `'${text}'; use True or False`);
  return lowered === 'true';
}

export function hardDelete(request: FastifyRequest): boolean {
  return booleanHeader(request, Header.hardDelete) ?? false;
}

export function resolveLinkTos(request: FastifyRequest, byDefault: boolean): boolean {
  return booleanHeader(request, Header.resolveLinkTos) ?? byDefault;
}

/**
 * Svc-RequireLeader (and the older Svc-RequireMaster / Svc-RequiresMaster): validated; a single
 * node is always the leader, so a valid value changes nothing.
 */
export function checkRequireLeader(request: FastifyRequest): void {
  booleanHeader(request, Header.requireLeader);
  booleanHeader(request, Header.requireMaster);
  booleanHeader(request, Header.requiresMaster);
}

/** Seconds to hold a forward read waiting for events; undefined when absent. */
export function longPollSeconds(request: FastifyRequest): number | undefined {
  const text = headerText(request, Header.longPoll);
  if (text === undefined) return undefined;
  const value = Number(text.trim());
  if (!Number.isSafeInteger(value) || value < 1 || value > LONG_POLL_SECONDS_MAX) {
    throw Errors.httpHeaderInvalid.create('Svc-LongPoll', `'${text}'; use whole seconds from 1 to ${LONG_POLL_SECONDS_MAX}`);
  }
  return value;
}

export function eventIdHeader(request: FastifyRequest): string | undefined {
  const text = headerText(request, Header.eventId);
  if (text === undefined) return undefined;
  const eventId = text.trim();
  if (!isUuid(eventId)) throw Errors.httpHeaderInvalid.create('Svc-EventId', `'${text}' is not a UUID`);
  if (isNilUuid(eventId)) throw Errors.eventIdNil.create('Svc-EventId header');
  return eventId.toLowerCase();
}

export function eventTypeHeader(request: FastifyRequest): string | undefined {
  const text = headerText(request, Header.eventType);
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}
