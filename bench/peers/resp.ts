/**
 * A Redis connection speaking RESP over a socket, as much of it as the bench needs: commands are
 * encoded once and written as they are, replies are counted, and an error reply fails the
 * connection. Small and cheap on purpose: a client library would put its own cost on the load
 * generator's core, beside a server that answers in microseconds.
 */
import { connect, type Socket } from 'node:net';

/** A command in RESP: an array of bulk strings. */
export function encodeCommand(args: string[]): Buffer {
  return Buffer.from(`*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`);
}

const CR_LF = Buffer.from('\r\n');

/**
 * Where the reply at `offset` ends, or -1 while it is incomplete. Simple strings, errors,
 * integers and bulk strings only: what XADD and PING answer.
 */
function replyEnd(buffer: Buffer, offset: number): number {
  const lineEnd = buffer.indexOf(CR_LF, offset);
  if (lineEnd < 0) return -1;
  const type = String.fromCharCode(buffer[offset]);
  if (type === '+' || type === '-' || type === ':') return lineEnd + 2;
  if (type !== '$') throw new Error(`unexpected RESP reply type ${JSON.stringify(type)}`);
  const length = Number(buffer.toString('latin1', offset + 1, lineEnd));
  const end = length < 0 ? lineEnd + 2 : lineEnd + 2 + length + 2;
  return end <= buffer.length ? end : -1;
}

interface Waiting {
  replies: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

export class RespConnection {
  private readonly waiting: Waiting[] = [];
  private unparsed: Buffer = Buffer.alloc(0);

  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.received(chunk));
    socket.on('error', (error) => this.fail(error));
  }

  static async connect(port: number): Promise<RespConnection> {
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new RespConnection(socket);
  }

  /** Writes `commands` (`count` commands back to back) and resolves once `count` replies came. */
  send(commands: Buffer, count: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ replies: count, resolve, reject });
      this.socket.write(commands);
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.end(resolve));
  }

  private received(chunk: Buffer): void {
    const buffer = this.unparsed.length > 0 ? Buffer.concat([this.unparsed, chunk]) : chunk;
    let offset = 0;
    try {
      for (let end = replyEnd(buffer, offset); end >= 0; end = replyEnd(buffer, offset)) {
        if (buffer[offset] === '-'.charCodeAt(0)) throw new Error(`redis answered ${buffer.toString('utf8', offset + 1, end - 2)}`);
        offset = end;
        const first = this.waiting[0];
        if (--first.replies === 0) {
          this.waiting.shift();
          first.resolve();
        }
      }
    } catch (error) {
      this.fail(error as Error);
      return;
    }
    this.unparsed = buffer.subarray(offset);
  }

  private fail(error: Error): void {
    for (const waiting of this.waiting.splice(0)) waiting.reject(error);
    this.socket.destroy();
  }
}
