/** Lines to stdout for commands that print a stream of results (stream read and tail, projection state). */
import { once } from 'node:events';

/**
 * Writes a line to stdout, waiting when the pipe is full, so a long read into a slow reader
 * neither buffers without bound nor loses lines. A reader that went away (`| head`) ends the
 * command quietly, as it does for other Unix tools.
 */
export async function writeLine(line: string): Promise<void> {
  if (!process.stdout.write(`${line}\n`)) await once(process.stdout, 'drain');
}

export function exitQuietlyOnClosedPipe(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}
