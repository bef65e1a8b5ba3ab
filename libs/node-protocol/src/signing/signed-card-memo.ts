/**
 * The cards a control-plane process signed lately (ADR 0390): a card whose bytes are exactly those
 * of a card signed before, with the same key, gets that signed card back instead of a new
 * signature. A card signature covers the card's payload and a protected header of alg, kid and typ
 * only (no time), so the reused signature is one the key would make for these bytes now; ECDSA's
 * randomness aside, nothing tells the two apart. What it saves: a promotion changes one
 * capability, and the cards of the entitlement classes that cannot see it (often half) are the
 * bytes they were at the revision before; they keep their signed bytes and ETag, so the delta to
 * the fleet, the nodes' verification (verified once per text, ADR 0345) and callers' caches see
 * them unchanged.
 *
 * Held per key object: signing with another key (a rotation, a key file reloaded with new
 * material under the same kid) forgets every card signed with the one before. Entries are found
 * by the unsigned bytes themselves (compared whole, never by a hash the caller supplied), and
 * bounded by the characters they hold, oldest first out.
 */
import type { SerializedProjection } from '@cp/capabilities';
import type { SignatureKey } from './keys';

/** The default bound: unsigned and signed bytes together (about 16 MB of one-byte strings). */
export const SIGNED_CARD_MEMO_CHARS = 16 * 1024 * 1024;

export class SignedCardMemo {
  private key?: SignatureKey['privateKey'];
  private kid?: string;
  /** By unsigned body: the signed projection (Map order is insertion order: the oldest first). */
  private readonly entries = new Map<string, SerializedProjection>();
  /** Signatures under way, by unsigned body (for the key held now). */
  private readonly signing = new Map<string, Promise<SerializedProjection>>();
  private chars = 0;
  /** Cards answered from the memo and cards signed: exposed for tests and benchmarks. */
  readonly stats = { reused: 0, signed: 0 };

  constructor(private readonly maxChars = SIGNED_CARD_MEMO_CHARS) {}

  /** `unsigned` signed with `key`: the card signed before for the same bytes and key, else `sign(unsigned)` remembered. */
  async signed(
    unsigned: SerializedProjection,
    key: SignatureKey,
    sign: (unsigned: SerializedProjection) => Promise<SerializedProjection>,
  ): Promise<SerializedProjection> {
    if (key.privateKey !== this.key || key.kid !== this.kid) this.forget(key);
    const known = this.entries.get(unsigned.body);
    if (known) {
      this.stats.reused++;
      return { ...known };
    }
    // The same bytes twice in one bundle (two classes with one card): signed once, the same answer.
    const signing = this.signing.get(unsigned.body);
    if (signing) {
      this.stats.reused++;
      return { ...(await signing) };
    }
    const started = sign(unsigned);
    this.signing.set(unsigned.body, started);
    try {
      const fresh = await started;
      this.stats.signed++;
      // Signed while the key changed: answered, not remembered under the new key.
      if (key.privateKey === this.key && key.kid === this.kid) this.remember(unsigned.body, fresh);
      return { ...fresh };
    } finally {
      if (this.signing.get(unsigned.body) === started) this.signing.delete(unsigned.body);
    }
  }

  /** How many cards it holds. */
  get size(): number {
    return this.entries.size;
  }

  private forget(key: SignatureKey): void {
    this.entries.clear();
    this.signing.clear();
    this.chars = 0;
    this.key = key.privateKey;
    this.kid = key.kid;
  }

  private remember(body: string, signed: SerializedProjection): void {
    const size = body.length + signed.body.length;
    if (size > this.maxChars || this.entries.has(body)) return;
    this.entries.set(body, { ...signed });
    this.chars += size;
    for (const [oldest, held] of this.entries) {
      if (this.chars <= this.maxChars) break;
      this.entries.delete(oldest);
      this.chars -= oldest.length + held.body.length;
    }
  }
}
