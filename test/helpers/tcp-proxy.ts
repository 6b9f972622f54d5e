/**
 * A TCP proxy on loopback that a test can freeze: while frozen it forwards nothing either way
 * (bytes wait in the proxy) and holds new connections, as a network partition or a hung peer
 * does, and thawing delivers what waited. The process behind it stays alive, so a test can watch
 * what it does while cut off.
 */
import { once } from 'node:events';
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';
import type { Test } from 'tap';

interface Direction {
  from: Socket;
  to: Socket;
  waiting: Buffer[];
}

export class TcpProxy {
  private frozen = false;
  private readonly directions: Direction[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly server = createServer((client) => this.accept(client));

  private constructor(private readonly targetPort: number) {}

  static async start(t: Test, targetUrl: string): Promise<TcpProxy> {
    const proxy = new TcpProxy(Number(new URL(targetUrl).port));
    proxy.server.listen(0, '127.0.0.1');
    await once(proxy.server, 'listening');
    t.teardown(() => proxy.close());
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  freeze(): void {
    this.frozen = true;
  }

  thaw(): void {
    this.frozen = false;
    for (const direction of this.directions) this.flush(direction);
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    const upstream = createConnection(this.targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    this.forward(client, upstream);
    this.forward(upstream, client);
  }

  private forward(from: Socket, to: Socket): void {
    const direction: Direction = { from, to, waiting: [] };
    this.directions.push(direction);
    from.on('data', (bytes: Buffer) => {
      direction.waiting.push(bytes);
      this.flush(direction);
    });
  }

  private flush(direction: Direction): void {
    if (this.frozen) return;
    for (const bytes of direction.waiting.splice(0)) direction.to.write(bytes);
  }
}
