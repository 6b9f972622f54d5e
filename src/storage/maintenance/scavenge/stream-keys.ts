/**
 * Which key a stream's scavenge data is stored under: its 64-bit hash, or its name once another
 * stream name was seen with the same hash (a collision). `HashUsers` remembers the first name
 * seen per hash, behind an LRU cache of a bounded number of hashes; `HashCollisions` lists the
 * names that collide, kept in memory (collisions are rare).
 */
import type Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';

export type StreamKey = { readonly byName: false; readonly key: bigint } | { readonly byName: true; readonly key: string };

/** Tables whose rows are keyed by hash, with a twin keyed by name for collisions. */
const KEYED_TABLES = [['MetastreamDatas', 'MetastreamDataCollisions'], ['OriginalStreamDatas', 'OriginalStreamDataCollisions']] as const;

const COLUMNS = {
  MetastreamDatas: 'isTombstoned, discardPoint, lastPosition',
  OriginalStreamDatas: 'isTombstoned, maxAge, maxCount, truncateBefore, discardPoint, maybeDiscardPoint, status',
} as const;

export class StreamKeys {
  private readonly users: LRUCache<bigint, string>;
  private readonly collisions: Set<string>;
  private readonly selectUser: Database.Statement;
  private readonly insertUser: Database.Statement;
  private readonly insertCollision: Database.Statement;
  cacheHits = 0;
  cacheMisses = 0;

  constructor(private readonly db: Database.Database, private readonly hash: (streamName: string) => bigint, cacheCapacity: number) {
    this.users = new LRUCache({ max: cacheCapacity });
    this.selectUser = db.prepare('SELECT value FROM HashUsers WHERE key = ?').pluck();
    this.insertUser = db.prepare('INSERT INTO HashUsers (key, value) VALUES (?, ?)');
    this.insertCollision = db.prepare('INSERT OR IGNORE INTO HashCollisions (key) VALUES (?)');
    this.collisions = new Set(db.prepare('SELECT key FROM HashCollisions').pluck().all() as string[]);
  }

  /** SQLite integers are signed 64-bit. */
  private hashOf(streamName: string): bigint {
    return BigInt.asIntN(64, this.hash(streamName));
  }

  get knownCollisions(): readonly string[] {
    return [...this.collisions];
  }

  /**
   * Notes a stream seen in the log. A name whose hash another name uses already is a collision:
   * both names go to HashCollisions, and the rows the hash keyed move to the by-name tables.
   * Returns the names newly found colliding.
   */
  notice(streamName: string): string[] {
    if (this.collisions.has(streamName)) return [];
    const hash = this.hashOf(streamName);
    let user = this.users.get(hash);
    if (user === undefined) {
      this.cacheMisses++;
      user = this.selectUser.get(hash) as string | undefined;
      if (user === undefined) {
        this.insertUser.run(hash, streamName);
        user = streamName;
      }
      this.users.set(hash, user);
    } else {
      this.cacheHits++;
    }
    if (user === streamName) return [];
    const found = [user, streamName].filter((name) => !this.collisions.has(name));
    for (const name of found) {
      this.insertCollision.run(name);
      this.collisions.add(name);
    }
    this.moveToNameTables(hash);
    return found;
  }

  private moveToNameTables(hash: bigint): void {
    for (const [byHash, byName] of KEYED_TABLES) {
      const columns = `name, ${COLUMNS[byHash]}`;
      this.db.prepare(`INSERT OR REPLACE INTO ${byName} (key, ${columns}) SELECT name, ${columns} FROM ${byHash} WHERE key = ?`).run(hash);
      this.db.prepare(`DELETE FROM ${byHash} WHERE key = ?`).run(hash);
    }
  }

  keyOf(streamName: string): StreamKey {
    return this.collisions.has(streamName) ? { byName: true, key: streamName } : { byName: false, key: this.hashOf(streamName) };
  }

  isCollision(streamName: string): boolean {
    return this.collisions.has(streamName);
  }
}

