/**
 * What an operator can do next, by error code. The registry's message says what went wrong; the
 * hint names the command line to change. Codes without a hint point at the error reference.
 */
import { Errors } from '../common/errors.js';

const corruptHint = 'Stop the node and restore the database from a backup; do not edit the files by hand.';

const hintByErrorCode: ReadonlyMap<string, string> = new Map([
  [Errors.storageLocked.code,
    'Another svcdb process is using this database (its pid is in svcdb.lock). Stop it first, or start this one with --db pointing at another directory.'],
  [Errors.optionInvalid.code, 'Run the command with --help for its options and their allowed values.'],
  [Errors.optionUnknown.code, 'Config file keys are the PascalCase option names (HttpPort); svcdb serve --help lists the options.'],
  [Errors.optionConflict.code, 'Change one of the two options the message names.'],
  [Errors.optionConfigFile.code, 'Check the path given with --config (or SVC_CONFIG) and that the file is a YAML mapping such as "HttpPort: 2113".'],
  [Errors.httpListen.code, 'Choose a free port with --http-port (0 picks any free port), or stop the process that uses it.'],
  [Errors.storageChecksum.code, corruptHint],
  [Errors.storageChunkHash.code, corruptHint],
  [Errors.storageCorrupt.code, corruptHint],
  [Errors.storageCheckpoint.code, corruptHint],
  [Errors.indexCorrupt.code, 'Stop the node and delete the index directory (--index); it is rebuilt from the log at the next start.'],
  [Errors.storageIo.code, 'Check the disk: free space, permissions, and the kernel log (dmesg). Then start the node again; it recovers from the log.'],
]);

export function hintFor(errorCode: string): string {
  return hintByErrorCode.get(errorCode) ?? `See ${errorCode} in the error reference (man/errors.md).`;
}
