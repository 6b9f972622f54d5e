/**
 * Why a projection stopped, and what of it every user may read. Reasons svcdb wrote for the
 * projection's users (its rights, its limits, what its code did, a write the node refused as it
 * would refuse a client's) are shown to all; any other error (the storage's, say) may carry
 * internal detail such as file paths, and only operators read it: others see that it was internal.
 */
import { isSvcError } from '../../common/errors.js';
import { DefinitionError } from './definition.js';
import { SandboxFault } from './sandbox.js';

/** A fault whose reason svcdb wrote for the projection's users. */
export class ProjectionFault extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProjectionFault';
  }
}

export interface FaultReason {
  /** The whole reason, for operators and the node's log. */
  full: string;
  /** The reason for users who are not operators. */
  public: string;
}

function isPublic(error: unknown): boolean {
  if (error instanceof ProjectionFault || error instanceof SandboxFault || error instanceof DefinitionError) return true;
  // A coded refusal of a write, as a client would get it (a deleted stream, an event too large): it says what to fix.
  return isSvcError(error) && error.statusCode < 500;
}

export function faultReason(error: unknown): FaultReason {
  const full = error instanceof Error ? error.message : String(error);
  if (isPublic(error)) return { full, public: full };
  const code = isSvcError(error) ? ` (${error.code})` : '';
  return { full, public: `the projection stopped on an internal error${code}; an operator can read the reason in its listing or the node's log` };
}
