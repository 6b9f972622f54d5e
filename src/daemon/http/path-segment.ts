/**
 * One segment of the path of a URL the node builds (a stream name, a login name, a group or
 * projection name): everything but unreserved characters percent-encoded, `$` too (`$$x` →
 * `%24%24x`), and a name that is only dots (`.` or `..`) written `%2E` / `%2E%2E`, which clients
 * that remove dot segments as RFC 3986 §5.2.4 has it leave in place, where `/streams/../0` would
 * become `/0`. Clients that treat `%2E` as a dot too (WHATWG URL parsers, browsers) still
 * resolve such a segment; no spelling of these two names survives them.
 */
export function pathSegment(name: string): string {
  const escaped = encodeURIComponent(name).replace(/\$/g, '%24');
  return escaped === '.' || escaped === '..' ? escaped.replace(/\./g, '%2E') : escaped;
}
