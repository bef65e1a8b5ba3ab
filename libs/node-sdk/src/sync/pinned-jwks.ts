/**
 * The JWKS an agent node verifies bundles (and cards) with: fetched from the URL pinned in its
 * configuration (SIGNING_JWKS_URL, default the control plane's /.well-known/jwks.json), never from
 * a URL named by what it verifies. Kept for `cacheMaxAgeMs`; an unknown kid fetches again, at
 * most once per `cooldownMs`, so forged kids cannot make the node hammer the URL. Every good fetch
 * is written to disk, and a node that starts while the control plane is away verifies its disk
 * bundle with the last JWKS it fetched (the control plane's copy wins whenever it answers).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createLocalJWKSet, errors, type FlattenedVerifyGetKey, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';

export interface PinnedJwksOptions {
  url: string;
  /** Where the last fetched JWKS is kept (omit: memory only). */
  file?: string;
  cacheMaxAgeMs?: number;
  cooldownMs?: number;
  timeoutMs?: number;
}

export class PinnedJwks {
  private set?: JWTVerifyGetKey;
  private fetchedAt = 0;
  private attemptedAt = 0;
  private inFlight?: Promise<void>;
  /** Fetches made (for tests and the rate-limit check). */
  fetches = 0;

  constructor(private readonly options: PinnedJwksOptions) {}

  /** Loads the disk copy (used only until a fetch succeeds). */
  async loadFromDisk(): Promise<boolean> {
    if (!this.options.file) return false;
    try {
      const doc = JSON.parse(await readFile(this.options.file, 'utf8')) as JSONWebKeySet;
      this.set = createLocalJWKSet(doc);
      return true;
    } catch {
      return false;
    }
  }

  /** Fetches the pinned URL now (coalesced); throws when it cannot. */
  refresh(): Promise<void> {
    this.inFlight ??= (async () => {
      this.attemptedAt = Date.now();
      this.fetches++;
      try {
        const response = await fetch(this.options.url, {
          headers: { accept: 'application/jwk-set+json, application/json' },
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 5000),
        });
        if (!response.ok) throw new errors.JWKSInvalid(`the JWKS URL answered ${response.status}`);
        const text = await response.text();
        const doc = JSON.parse(text) as JSONWebKeySet;
        this.set = createLocalJWKSet(doc); // throws JWKSInvalid on a document without keys
        this.fetchedAt = Date.now();
        await this.persist(text);
      } finally {
        this.inFlight = undefined;
      }
    })();
    return this.inFlight;
  }

  /** jose key lookup by kid and alg, refreshing as described above. */
  readonly getKey: FlattenedVerifyGetKey = async (header, token) => {
    const cooled = Date.now() - this.attemptedAt >= (this.options.cooldownMs ?? 30_000);
    const stale = Date.now() - this.fetchedAt > (this.options.cacheMaxAgeMs ?? 300_000);
    if (!this.set || (stale && cooled)) {
      // Stale keys keep verifying when the URL does not answer; no keys at all is an error.
      await this.refresh().catch((error: unknown) => {
        if (!this.set) throw error;
      });
    }
    const lookup = (): ReturnType<JWTVerifyGetKey> => this.set!(header as Parameters<JWTVerifyGetKey>[0], token);
    try {
      return await lookup();
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey) || Date.now() - this.attemptedAt < (this.options.cooldownMs ?? 30_000)) throw error;
      await this.refresh().catch(() => undefined);
      return lookup();
    }
  };

  private async persist(text: string): Promise<void> {
    const file = this.options.file;
    if (!file) return;
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await mkdir(dirname(file), { recursive: true });
      await writeFile(tmp, text, 'utf8');
      await rename(tmp, file);
    } catch {
      // A node that cannot write its cache still verifies with the keys in memory.
    }
  }
}
