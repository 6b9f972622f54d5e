/**
 * Pages of the log read once for every projection that reads them. The standard projections all
 * read the whole log, page by page from the same positions once they have caught up: without
 * sharing, each event would be read and decoded once per projection. A page is the log's answer
 * for a position, which later reads would give again, so the few newest are kept.
 */
import type { Engine } from '../../storage/engine.js';
import type { ConsumerOptions } from '../../storage/log-consumers.js';
import { systemStreamFilter, type AllPage, type SystemStreamSkip } from '../../storage/reader.js';
import type { ProjectionStorage } from './projection.js';

/** Enough for each standard projection to be a few pages from the others. */
const PAGES_KEPT = 16;

export class SharedPages {
  private readonly pages = new Map<string, AllPage>();

  constructor(private readonly storage: Pick<Engine, 'readAllForward'>) {}

  read(position: number, maxCount: number, skipSystemStreams: SystemStreamSkip): AllPage {
    const key = `${position}/${maxCount}/${String(skipSystemStreams)}`;
    const kept = this.pages.get(key);
    if (kept) return kept;
    const page = this.storage.readAllForward(position, maxCount, systemStreamFilter(skipSystemStreams));
    this.pages.set(key, page);
    // A Map iterates in insertion order: the first key is the oldest page.
    if (this.pages.size > PAGES_KEPT) this.pages.delete(this.pages.keys().next().value!);
    return page;
  }
}

/** The storage projections run on, with every consumer reading through one SharedPages. */
export function withSharedPages(storage: ProjectionStorage & Pick<Engine, 'readAllForward'>): ProjectionStorage {
  const pages = new SharedPages(storage);
  const readPage = (position: number, maxCount: number, skip: SystemStreamSkip) => pages.read(position, maxCount, skip);
  return {
    append: storage.append.bind(storage),
    readStreamBackward: storage.readStreamBackward.bind(storage),
    readStreamForward: storage.readStreamForward.bind(storage),
    readEvent: storage.readEvent.bind(storage),
    status: storage.status.bind(storage),
    unfollow: storage.unfollow.bind(storage),
    follow: (options: ConsumerOptions) => storage.follow({ readPage, ...options }),
  };
}
