/**
 * The cap on open connections (--connections-max), shared out among client addresses. Node's own
 * `server.maxConnections` closes every connection beyond the cap, so one client that opens
 * enough slow connections (a body dripping a byte every few seconds) locks everyone else out.
 * Here a connection that arrives at the cap is let in when its address holds fewer connections
 * than the address that holds the most: that address's oldest connection is closed for it.
 * Otherwise (its address is among those holding the most) the newcomer is closed, as Node does.
 * Closed connections get no reply, and the server emits 'drop' for each, as Node does.
 */
import type { Server, Socket } from 'node:net';

/**
 * Who a connection counts against: its IPv4 address, or the /64 network of its IPv6 address (one
 * host is commonly given a whole /64, so counting single IPv6 addresses would let it open as many
 * connections as it has addresses).
 */
export function clientOf(address: string): string {
  const bare = address.split('%')[0].toLowerCase();
  if (!bare.includes(':')) return bare;
  if (bare.startsWith('::ffff:') && bare.includes('.')) return bare.slice(7);
  const [head, tail] = bare.split('::');
  const headParts = head === '' ? [] : head.split(':');
  const tailParts = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(Math.max(0, 8 - headParts.length - tailParts.length)).fill('0');
  const groups = [...headParts, ...zeros, ...tailParts].slice(0, 4).map((group) => group.replace(/^0+(?=.)/, ''));
  return `${groups.join(':')}::/64`;
}

export class ConnectionCap {
  private open = 0;
  /** Each client's open connections, oldest first (a Set keeps insertion order); a client is clientOf(address). */
  private readonly byAddress = new Map<string, Set<Socket>>();
  /** Addresses by how many connections they hold, to find the busiest at once. */
  private readonly addressesByCount = new Map<number, Set<string>>();
  private busiest = 0;

  constructor(private readonly max: number, private readonly server: Server) {}

  /** Call on every new connection, before anything is read from it. */
  admit(socket: Socket): void {
    const address = clientOf(socket.remoteAddress ?? '');
    if (this.open >= this.max) {
      const held = this.byAddress.get(address)?.size ?? 0;
      if (held >= this.busiest) {
        this.drop(socket);
        return;
      }
      this.evictOldestOfBusiest();
    }
    this.add(address, socket);
    socket.once('close', () => this.remove(address, socket));
  }

  private evictOldestOfBusiest(): void {
    const [address] = this.addressesByCount.get(this.busiest)!;
    const [oldest] = this.byAddress.get(address)!;
    // Counted out now: 'close' may come later, and the newcomer takes its place at once.
    this.remove(address, oldest);
    this.drop(oldest);
  }

  private drop(socket: Socket): void {
    socket.destroy();
    this.server.emit('drop', { remoteAddress: socket.remoteAddress, remotePort: socket.remotePort });
  }

  private add(address: string, socket: Socket): void {
    let sockets = this.byAddress.get(address);
    if (!sockets) this.byAddress.set(address, sockets = new Set());
    this.move(address, sockets.size, sockets.size + 1);
    sockets.add(socket);
    this.open++;
  }

  private remove(address: string, socket: Socket): void {
    const sockets = this.byAddress.get(address);
    if (!sockets?.delete(socket)) return;
    this.open--;
    this.move(address, sockets.size + 1, sockets.size);
    if (sockets.size === 0) this.byAddress.delete(address);
  }

  /** Moves `address` from the bucket of `from` connections to that of `to` (they differ by one). */
  private move(address: string, from: number, to: number): void {
    const previous = this.addressesByCount.get(from);
    previous?.delete(address);
    if (previous?.size === 0) this.addressesByCount.delete(from);
    if (to > 0) {
      let next = this.addressesByCount.get(to);
      if (!next) this.addressesByCount.set(to, next = new Set());
      next.add(address);
    }
    if (to > this.busiest) this.busiest = to;
    else if (from === this.busiest && !this.addressesByCount.has(from)) this.busiest = to;
  }
}

/** Enforces `max` on `server` fairly among addresses, in place of Node's `maxConnections`. */
export function capConnections(server: Server, max: number): ConnectionCap {
  const cap = new ConnectionCap(max, server);
  server.on('connection', (socket: Socket) => cap.admit(socket));
  return cap;
}
