import { closeRedis, redisAway, type RedisClient } from '@cp/common';

/** What BundleCache.current reads an agent's revision key with. */
export interface RevisionReader {
  get(key: string): Promise<string | null>;
}

/**
 * The node bundle route's reads of revision keys (ADR 0195), on a connection of their own.
 * Every node of an agent revalidates the same key, so reads of one key that arrive before its GET
 * is issued share that GET: the first read of a key schedules it with setImmediate (after the
 * I/O callbacks of this event-loop turn, i.e. the requests already read), and each read of the
 * key until then joins it. A read never joins a GET that was already issued, so it sees Redis as
 * it was after the read arrived: a revision raised before that is never missed.
 */
export class RevisionReads implements RevisionReader {
  /** Per key, the GET scheduled and not issued yet: only reads that find one here join it. */
  private readonly pending = new Map<string, Promise<string | null>>();
  /** GETs issued and reads answered: exposed for tests and benchmarks. */
  readonly stats = { gets: 0, reads: 0 };

  constructor(
    private readonly redis: RedisClient,
    private readonly coalesce = true,
  ) {}

  /** Whether the connection is ready (commands would otherwise wait for a reconnection). */
  connected(): boolean {
    return !redisAway(this.redis);
  }

  get(key: string): Promise<string | null> {
    this.stats.reads++;
    if (!this.coalesce) {
      this.stats.gets++;
      return this.redis.get(key);
    }
    const open = this.pending.get(key);
    if (open) return open;
    const read = new Promise<string | null>((resolve, reject) => {
      setImmediate(() => {
        // Issued: from here on a read of this key schedules a GET of its own.
        this.pending.delete(key);
        this.stats.gets++;
        try {
          resolve(this.redis.get(key));
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
    this.pending.set(key, read);
    return read;
  }

  close(): Promise<void> {
    return closeRedis(this.redis);
  }
}
