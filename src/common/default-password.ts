/**
 * The first password of the default users (admin, ops) unless options set others, and the one
 * svcdb's client commands send when none is given. The node warns while a default user still has
 * it. A constant here because the option schema, the node and the CLI all need it.
 */
export const DEFAULT_PASSWORD = 'changeit';
