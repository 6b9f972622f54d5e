/**
 * The URL a person on the node's machine opens, from the bound address: the "listening" line and
 * the terminal banner carry it, with the web console's. An address that binds every interface is
 * not one a browser can open, so it becomes localhost; an IPv6 address is bracketed.
 */
import net from 'node:net';

export function nodeUrl(protocol: 'http' | 'https', ip: string, port: number): string {
  const host = ip === '0.0.0.0' || ip === '::' ? 'localhost' : net.isIPv6(ip) ? `[${ip}]` : ip;
  return `${protocol}://${host}:${port}`;
}
