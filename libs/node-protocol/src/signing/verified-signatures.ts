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
 * Runs `verify` (which returns the kid on success, and may throw) with a key getter that records
 * the key it used, unless `id` verified before, or is being verified now, with the key material
 * `getKey` yields for that kid now: then resolves with that kid without verifying. The claim is
 * taken before anything is awaited, so checks of the same text started together wait for one.
 */
export async function verifyOnce(
  id: string,
  getKey: FlattenedVerifyGetKey,
  verify: (getKey: FlattenedVerifyGetKey) => Promise<string | undefined>,
): Promise<string | undefined> {
  const entry = verified.get(id);
  if (entry) {
    const kid = await confirmed(entry, getKey);
    if (kid !== undefined) return kid;
  }
  const settle = claim(id);
  let used: unknown;
  let kid: string | undefined;
  try {
    kid = await verify(async (header, token) => {
      used = undefined;
      used = await getKey(header, token);
      return used as Awaited<ReturnType<FlattenedVerifyGetKey>>;
    });
    return kid;
  } finally {
    settle(kid === undefined ? undefined : { kid, key: used });
  }
}

/** The remembered success's kid, if `getKey` yields the same key material for it now. */
async function confirmed(entry: Promise<Verified | undefined>, getKey: FlattenedVerifyGetKey): Promise<string | undefined> {
  const done = await entry;
  if (!done) return undefined;
  try {
    const key = await getKey({ alg: SIGNATURE_ALG, kid: done.kid }, { payload: '', signature: '', protected: '' });
    return materialOf(key) === done.material ? done.kid : undefined;
  } catch {
    return undefined;
  }
}

/** Marks `id` as being verified; the returned function records the outcome (undefined: failed, forgotten). */
function claim(id: string): (outcome: { kid: string; key: unknown } | undefined) => void {
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
