/**
 * What the signed-in user may do, from their groups, so that pages and buttons match what the
 * node allows: a user sees no action the API would refuse them. The node still decides every
 * request; this only keeps the console from offering what would fail.
 */
import type { Route } from './routes.js';

export const ADMINS_GROUP = '$admins';
export const OPS_GROUP = '$ops';

export interface Rights {
  /** `$admins`: users. */
  admin: boolean;
  /** `$admins` or `$ops`: node operations, scavenge. */
  operator: boolean;
}

export const NO_RIGHTS: Rights = Object.freeze({ admin: false, operator: false });

export function rightsOf(groups: readonly string[]): Rights {
  const admin = groups.includes(ADMINS_GROUP);
  return { admin, operator: admin || groups.includes(OPS_GROUP) };
}

/** The right a page needs, if any. */
const PAGE_RIGHT: Partial<Record<Route['page'], keyof Rights>> = { users: 'admin', scavenge: 'operator', admin: 'operator' };

export function mayOpen(page: Route['page'], rights: Rights): boolean {
  const right = PAGE_RIGHT[page];
  return right === undefined || rights[right];
}

/** Who the page is for, said to a user who may not open it. */
export function pageAudience(page: Route['page']): string {
  return PAGE_RIGHT[page] === 'admin' ? 'administrators ($admins)' : 'operators ($admins and $ops)';
}

const DEFAULT_LOGINS = new Set(['admin', 'ops']);
const DEFAULT_PASSWORD = 'changeit';

/** Whether the user signed in as a default user with the password every node starts with. */
export function usesDefaultPassword(login: string, password: string): boolean {
  return DEFAULT_LOGINS.has(login) && password === DEFAULT_PASSWORD;
}
