/**
 * A bare TCP connection to a node, for tests of what the server does to connections themselves
 * (caps, timeouts): it records what the server sent and when the connection closed.
 */
import net from 'node:net';

export interface RawConnection {
  socket: net.Socket;
  /** What the server sent, so far or before it closed the connection. */
  received: () => string;
  /** Resolves when the connection is closed, by either side. */
  closed: Promise<void>;
  isClosed: () => boolean;
}

/** Connects to 127.0.0.1:`port` (from `localAddress` when given) and sends nothing. */
export function openConnection(port: number, localAddress?: string): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    let received = '';
    let isClosed = false;
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      received += chunk;
    });
    // A connection the server drops may be reset rather than ended; 'close' follows either way.
    socket.on('error', () => {});
    const closed = new Promise<void>((closedResolve) => socket.once('close', () => {
      isClosed = true;
      closedResolve();
    }));
    socket.once('connect', () => resolve({ socket, received: () => received, closed, isClosed: () => isClosed }));
    socket.once('close', () => reject(new Error(`connection to port ${port} failed before it was established`)));
  });
}
