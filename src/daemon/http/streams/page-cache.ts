/**
 * Rendered feed pages, so that a page many clients read (the head of a stream everyone polls, a
 * page a crowd is catching up through) is built once rather than once per request.
 *
 * A cached page is valid while the log's content version (its end, and the chunks replaced so
 * far) is what it was when the page was rendered. Every
 * change a stream page can show is a write to the log (events, metadata and ACLs in `$$s`,
 * deletes, tombstones, users), so an unchanged log end means an unchanged page and an unchanged
 * access decision for the same principal, which is part of the key. What changes a page without a
 * write is kept out: pages of streams with `$maxAge` (events expire with time), and every embed
 * level but none (only they show data or the redaction flag, which a redaction changes in place).
 * Long polls and `$all` (a scavenge changes it) are not cached either.
 */
import { LRUCache } from 'lru-cache';
import type { Principal } from '../../services/stream-access.js';

/** All cached pages together take at most this much memory. */
export const PAGE_CACHE_BYTES_MAX = 32 * 1024 * 1024;
/** Larger pages are rendered each time: they are rarely shared, and would crowd out the rest. */
export const CACHED_PAGE_BYTES_MAX = 256 * 1024;

/** What the cache headers of a stream page depend on. */
export interface PageState {
  /** The stream's last event number: the ETag version. */
  lastEventNumber: number;
  /** The log's content epoch, part of the ETag: a redaction changes it. */
  contentEpoch: number;
  immutable: boolean;
  cacheControlSeconds?: number;
}

export interface RenderedPage extends PageState {
  body: Buffer;
}

interface CachedPage extends RenderedPage {
  version: string;
}

export class PageCache {
  private readonly pages = new LRUCache<string, CachedPage>({
    maxSize: PAGE_CACHE_BYTES_MAX,
    sizeCalculation: (page, key) => page.body.length + key.length,
  });

  /** The page cached under `key`, if the log has not changed since it was rendered. */
  get(key: string, version: string): RenderedPage | undefined {
    const page = this.pages.get(key);
    if (page === undefined || page.version === version) return page;
    this.pages.delete(key);
    return undefined;
  }

  /** Keeps `page`, rendered at the log's content `version`. */
  set(key: string, version: string, page: RenderedPage): void {
    if (page.body.length <= CACHED_PAGE_BYTES_MAX) this.pages.set(key, { ...page, version });
  }
}

/** The part of a page's key that says who asked: access decisions depend on it. */
export function principalKey(principal: Principal | undefined): string {
  return principal === undefined ? '' : `${principal.name}\u0000${principal.groups.join('\u0000')}`;
}
