/**
 * Pages of the log read once for every projection that reads them. The standard projections all
 * read the whole log, page by page from the same positions once they have caught up: without
 * sharing, each event would be read and decoded once per projection. A page is the log's answer
 * for a position, which later reads would give again, so the few newest are kept, each until every
 * consumer following through these pages has read it: a page nobody else will ask for is let go
 * at once, since kept pages of decoded events are what the garbage collector would copy around.
 */
import type { Engine } from '../../storage/engine.js';
import type { ConsumerOptions, LogConsumer } from '../../storage/read/log-consumers.js';
import { systemStreamFilter, type AllPage, type SystemStreamSkip } from '../../storage/read/reader.js';
import type { ProjectionStorage } from './projection.js';
import { readOffLoop } from '../../storage/disk/cold-reads.js';

/** Enough for each standard projection to be a few pages from the others. */
const PAGES_KEPT = 16;

interface KeptPage {
  /** Read off the event loop; kept while it is read, so that consumers asking at once share the read. */
  page: Promise<AllPage>;
  /** Consumers that have read it so far. */
  reads: number;
}

export class SharedPages {
  private readonly pages = new Map<string, KeptPage>();
  /** Consumers following the log through these pages. */
  readers = 0;

  constructor(private readonly storage: Pick<Engine, 'readAllForward'>) {}

  read(position: number, maxCount: number, skipSystemStreams: SystemStreamSkip): Promise<AllPage> {
    const key = `${position}/${maxCount}/${String(skipSystemStreams)}`;
    const kept = this.pages.get(key);
    if (kept) {
      kept.reads += 1;
      if (kept.reads >= this.readers) this.pages.delete(key);
      return kept.page;
    }
    const page = readOffLoop(() => this.storage.readAllForward(position, maxCount, systemStreamFilter(skipSystemStreams)));
    if (this.readers <= 1) return page;
    this.pages.set(key, { page, reads: 1 });
    // A Map iterates in insertion order: the first key is the oldest page.
    if (this.pages.size > PAGES_KEPT) this.pages.delete(this.pages.keys().next().value!);
    return page;
  }
}

/** The storage projections run on, with every consumer reading through one SharedPages. */
export function withSharedPages(storage: ProjectionStorage & Pick<Engine, 'readAllForward'>): ProjectionStorage {
  const pages = new SharedPages(storage);
  const following = new Set<LogConsumer>();
  const readPage = (position: number, maxCount: number, skip: SystemStreamSkip) => pages.read(position, maxCount, skip);
  return {
    append: storage.append.bind(storage),
    readStreamBackward: storage.readStreamBackward.bind(storage),
    readStreamForward: storage.readStreamForward.bind(storage),
    readEvent: storage.readEvent.bind(storage),
    status: storage.status.bind(storage),
    follow: (options: ConsumerOptions) => {
      // Counted before it follows: a consumer's first read may come before follow returns.
      pages.readers += 1;
      try {
        const consumer = storage.follow({ readPage, ...options });
        following.add(consumer);
        return consumer;
      } catch (error) {
        pages.readers -= 1;
        throw error;
      }
    },
    unfollow: (consumer: LogConsumer) => {
      if (following.delete(consumer)) pages.readers -= 1;
      storage.unfollow(consumer);
    },
  };
}
