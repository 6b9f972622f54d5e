/**
 * What the node creates is for the node's user alone: events, indexes and checkpoints are the
 * database, and other local users must not read them (the redaction socket is 0600 already).
 * The process umask can only take permissions away from these.
 */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIRECTORY_MODE = 0o700;
