/**
 * Signatures this process has already verified (ADR 0345). Verifying is a pure function of the
 * signed bytes and the public key: an ES256 signature that verified over these bytes with this key
 * verifies again. So a success is remembered, keyed by a sha256 of the signed text (a card body
 * with its `signatures`, or a compact JWS), with the kid and the key's material (its SPKI) it
 * verified with. A later check of the same text looks the kid up in the verifier's keys now and
 * counts as verified only if that yields the same material: a key removed from the pinned JWKS,
 * or replaced under the same kid, is not trusted from memory. Failures are never remembered (each
 * runs in full and names what is wrong).
 *
 * Why: every node of a fleet checks the same cards and bundle signature at every change, and nodes
 * hosted in one process (a gateway, a test fleet) would each run the same ECDSA verifications and
 * canonicalisation; a node re-reading its disk bundle or a lazily signed card repeats one too.
 */
import { createHash, KeyObject } from 'node:crypto';
import type { FlattenedVerifyGetKey } from 'jose';
import { SIGNATURE_ALG } from './keys';

/** What a remembered success holds: the kid it verified with, and that key's material. */
interface Verified {
  kid: string;
  material: string;
}

/** At most this many texts are kept (oldest forgotten first): a fleet's few live cards and bundles. */
const MAX_ENTRIES = 512;
/** Per signed text: its success (or undefined once it failed), pending while being verified. */
const verified = new Map<string, Promise<Verified | undefined>>();
/** Key material per key object (the SPKI's sha256), computed once per object. */
const materials = new WeakMap<object, string>();

/** The sha256 of the key's public material; undefined for what is not an asymmetric public key. */
function materialOf(key: unknown): string | undefined {
  if (typeof key !== 'object' || key === null) return undefined;
  const known = materials.get(key);
  if (known) return known;
  let object: KeyObject;
  try {
    object = key instanceof KeyObject ? key : KeyObject.from(key as Parameters<typeof KeyObject.from>[0]);
  } catch {
    return undefined;
  }
  if (object.type !== 'public') return undefined;
  const material = createHash('sha256')
    .update(object.export({ format: 'der', type: 'spki' }))
    .digest('base64url');
  materials.set(key, material);
  return material;
}

/** The memo's key for a signed text: a digest, so the memo holds no large strings. */
export function signedTextId(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url');
}

/**
 * The kid `id` verified with (waiting for a verification of it under way), if `getKey` yields the
 * same key material for that kid now; undefined otherwise (never verified, failed, or the keys
 * changed): the caller verifies in full, under verifying().
 */
export async function verifiedBefore(id: string, getKey: FlattenedVerifyGetKey): Promise<string | undefined> {
  const entry = await verified.get(id);
  if (!entry) return undefined;
  try {
    const key = await getKey({ alg: SIGNATURE_ALG, kid: entry.kid }, { payload: '', signature: '', protected: '' } as never);
    return materialOf(key) === entry.material ? entry.kid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Marks `id` as being verified, so that concurrent checks of the same text wait for this one
 * (a fleet's nodes in one process receive a change at once). Call the returned function with the
 * outcome: the kid and the key a success used, or undefined for a failure (forgotten at once).
 */
export function verifying(id: string): (outcome: { kid: string; key: unknown } | undefined) => void {
  let settle!: (value: Verified | undefined) => void;
  const pending = new Promise<Verified | undefined>((resolve) => (settle = resolve));
  verified.delete(id);
  verified.set(id, pending);
  if (verified.size > MAX_ENTRIES) verified.delete(verified.keys().next().value!);
  return (outcome) => {
    const material = outcome && materialOf(outcome.key);
    if (!outcome || material === undefined) {
      if (verified.get(id) === pending) verified.delete(id);
      settle(undefined);
    } else settle({ kid: outcome.kid, material });
  };
}

/** A key getter that also reports the key it returned last (the one a successful verify used). */
export function capturingKey(getKey: FlattenedVerifyGetKey): { getKey: FlattenedVerifyGetKey; used: () => unknown } {
  let used: unknown;
  return {
    getKey: async (header, token) => {
      used = undefined;
      const key = await getKey(header, token);
      used = key;
      return key;
    },
    used: () => used,
  };
}

/** Forgets every remembered success (tests). */
export function forgetVerifiedSignatures(): void {
  verified.clear();
}
