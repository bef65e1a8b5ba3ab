/**
 * Node bundle signatures (ADR 0130). The control plane signs every bundle it builds: each card in
 * it (public card and every precomputed class's extended card, A2A §8.4), then the bundle itself,
 * a compact JWS (`typ: cp-bundle+jwt`, ES256, kid) whose payload names the agent, the revision,
 * the registry epoch and the contentHash. `signature` is left out of contentHash (like
 * generatedAt), so anything that rebuilds a bundle (the delta sync) recomputes the same hash and
 * checks this signature over it.
 *
 * A node calls verifyNodeBundle(bundle, keys) after checkNodeBundle (shape, hash, projections
 * recomputed from the snapshot with `signatures` removed) and before it activates the bundle, and
 * again on a bundle read from its disk cache.
 */
import { CompactSign, base64url, compactVerify, decodeProtectedHeader } from 'jose';
import {
  bundleContentHash,
  canonicalJson,
  finishNodeBundle,
  nodeBundleContent,
  nodeBundleContentHash,
  serializeCardWithSignatures,
  type NodeBundle,
  type NodeBundleClass,
  type NodeBundleOptions,
  type RegistrySnapshot,
  type SerializedProjection,
} from '@cp/capabilities';
import { nodeCatalog } from '../catalog/node-catalog';
import { CardVerifyCode, cardSignatures, failureCode, verifyCardSignature, worstFailure } from './card-signature';
import { catalogSignature, verifyCatalogSignature, withCatalogSignature } from './catalog-signature';
import { SIGNATURE_ALG, keyGetter, type SignatureKey, type VerificationKeys } from './keys';
import type { SignedCardMemo } from './signed-card-memo';
import { signedTextId, verifyOnce } from './verified-signatures';

export const BUNDLE_SIGNATURE_TYP = 'cp-bundle+jwt';

/** What a bundle signature asserts. */
export interface BundleSignaturePayload {
  agentId: string;
  revision: number;
  /** RegistrySnapshot.epoch, '' when the bundle has none. */
  epoch: string;
  contentHash: string;
  /** Epoch seconds. */
  iat: number;
}

export type BundleVerification = { ok: true; kid: string } | { ok: false; code: CardVerifyCode; reason: string };

const encoder = new TextEncoder();

/** One card signed (§8.4): its bytes and ETag recomputed with `signatures`. */
export async function signProjection(projection: SerializedProjection, key: SignatureKey): Promise<SerializedProjection> {
  const card = JSON.parse(projection.body) as Record<string, unknown>;
  delete card.signatures;
  return serializeCardWithSignatures(card, await cardSignatures(card, key));
}

/**
 * The bundle with every card signed, the anonymous node catalog signed when the bundle carries its
 * parameters (ADR 0315), contentHash recomputed, and its own signature. Cards are signed here,
 * once per (revision, entitlement class), never per request; with `memo`, a card whose bytes were
 * signed before with this key keeps that signature (ADR 0390).
 */
export async function signNodeBundle(
  bundle: NodeBundle,
  key: SignatureKey,
  now: Date = new Date(),
  memo?: SignedCardMemo,
): Promise<NodeBundle> {
  const { signature: _old, ...rest } = bundle;
  const signed: NodeBundle = { ...rest, ...(await signedParts(rest, key, memo)) };
  signed.contentHash = bundleContentHash(signed);
  signed.signature = await bundleJws(signed, key, now);
  return signed;
}

/**
 * signNodeBundle(buildNodeBundle(snapshot, options), key) made in one pass (ADR 0390): the cards
 * and the catalog are signed before the bundle is finished, so the bundle is written as canonical
 * JSON once (for its round trip and its hash) instead of three times, and `body`, the JSON text a
 * node is served, is that text with contentHash, generatedAt and signature added, not a fourth
 * writing. `memo` as for signNodeBundle.
 */
export async function buildSignedNodeBundle(
  snapshot: RegistrySnapshot,
  key: SignatureKey,
  options: NodeBundleOptions & { memo?: SignedCardMemo } = {},
): Promise<{ bundle: NodeBundle; body: string }> {
  const now = options.now ?? new Date();
  const content = nodeBundleContent(snapshot, { ...options, now });
  // The catalog is signed as signNodeBundle signs it: from the snapshot as a node holds it (parsed from canonical JSON).
  const plainSnapshot = JSON.parse(canonicalJson(snapshot)) as RegistrySnapshot;
  const parts = await signedParts({ ...content, snapshot: plainSnapshot }, key, options.memo);
  const { bundle, canonical } = finishNodeBundle({ ...content, ...parts }, now);
  bundle.signature = await bundleJws(bundle, key, now);
  const trailer = { contentHash: bundle.contentHash, generatedAt: bundle.generatedAt, signature: bundle.signature };
  return { bundle, body: `${canonical.slice(0, -1)},${JSON.stringify(trailer).slice(1)}` };
}

/** The signed cards and catalog of a bundle's content: independent signatures, started together. */
async function signedParts(
  content: Pick<NodeBundle, 'publicCard' | 'classes' | 'catalog' | 'snapshot'>,
  key: SignatureKey,
  memo: SignedCardMemo | undefined,
): Promise<Pick<NodeBundle, 'publicCard' | 'classes' | 'catalog'>> {
  const params = content.catalog && {
    host: content.catalog.host,
    publisher: content.catalog.publisher,
    updatedAt: content.catalog.updatedAt,
  };
  const sign = (projection: SerializedProjection) =>
    memo ? memo.signed(projection, key, (p) => signProjection(p, key)) : signProjection(projection, key);
  // The signatures are independent: started together, WebCrypto computes them on libuv's pool in
  // parallel (ADR 0365); each is the same signature it was when they were made one after another.
  const [publicCard, extendedCards, catalog] = await Promise.all([
    sign(content.publicCard),
    Promise.all(content.classes.map((c) => sign(c.extendedCard))),
    params ? catalogSignature(nodeCatalog(content.snapshot, params, null), key) : undefined,
  ]);
  const classes: NodeBundleClass[] = content.classes.map((c, i) => ({ ...c, extendedCard: extendedCards[i] }));
  return { publicCard, classes, ...(params ? { catalog: { ...params, signature: catalog! } } : {}) };
}

/** The bundle's own compact JWS over {agentId, revision, epoch, contentHash, iat}. */
function bundleJws(bundle: NodeBundle, key: SignatureKey, now: Date): Promise<string> {
  const payload: BundleSignaturePayload = {
    agentId: bundle.agentId,
    revision: bundle.revision,
    epoch: bundle.snapshot.epoch ?? '',
    contentHash: bundle.contentHash,
    iat: Math.floor(now.getTime() / 1000),
  };
  return new CompactSign(encoder.encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: SIGNATURE_ALG, kid: key.kid, typ: BUNDLE_SIGNATURE_TYP })
    .sign(key.privateKey);
}

const fail = (code: CardVerifyCode, reason: string): BundleVerification => ({ ok: false, code, reason });

/**
 * Verifies a bundle's signature and every card signature in it against the pinned keys. The
 * contentHash is recomputed from the bundle, never taken from it. Never throws.
 */
export async function verifyNodeBundle(bundle: NodeBundle, keys: VerificationKeys): Promise<BundleVerification> {
  const verified = await verifyBundleSignature(bundle, keys);
  if (!verified.ok) return verified;
  const getKey = keyGetter(keys);
  const cards: [string, SerializedProjection][] = [
    ['publicCard', bundle.publicCard],
    ...bundle.classes.map((c, i) => [`classes[${i}].extendedCard`, c.extendedCard] as [string, SerializedProjection]),
  ];
  for (const [where, card] of cards) {
    const result = await verifyCardSignature(card.body, getKey);
    if (!result.ok) return fail(worstFailure([result.code]), `${where}: ${result.reason}`);
  }
  // The anonymous catalog's signature, over the catalog recomputed from this bundle (ADR 0315).
  if (bundle.catalog?.signature !== undefined) {
    const catalog = withCatalogSignature(nodeCatalog(bundle.snapshot, bundle.catalog, null), bundle.catalog.signature);
    const result = await verifyCatalogSignature(catalog, keys);
    if (!result.ok) return fail(result.code, `catalog: ${result.reason}`);
  }
  return verified;
}

/**
 * The bundle's own signature only: its JWS verifies with `keys` and names this agent, revision,
 * epoch and the contentHash recomputed from the bundle (which covers the snapshot and every card
 * with its signatures). What the control plane checks before it signs anything computed from a
 * bundle it read back from Redis (ADR 0132). Never throws.
 */
export async function verifyBundleSignature(bundle: NodeBundle, keys: VerificationKeys): Promise<BundleVerification> {
  if (typeof bundle.signature !== 'string' || bundle.signature === '') return fail(CardVerifyCode.Unsigned, 'the bundle is not signed');
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(bundle.signature);
  } catch {
    return fail(CardVerifyCode.Malformed, 'the bundle signature is not a compact JWS');
  }
  if (header.typ !== BUNDLE_SIGNATURE_TYP || header.alg !== SIGNATURE_ALG || typeof header.kid !== 'string') {
    return fail(CardVerifyCode.Malformed, `the bundle signature must be ${SIGNATURE_ALG} with a kid and typ ${BUNDLE_SIGNATURE_TYP}`);
  }
  const getKey = keyGetter(keys);
  // A JWS this process verified before with the same key material is not verified again (ADR 0345).
  const jws = bundle.signature;
  let claims: Partial<BundleSignaturePayload> | undefined;
  try {
    await verifyOnce(signedTextId(jws), getKey, async (key) => {
      const { payload } = await compactVerify(jws, key, { algorithms: [SIGNATURE_ALG] });
      claims = JSON.parse(new TextDecoder().decode(payload)) as Partial<BundleSignaturePayload>;
      return header.kid;
    });
    // Verified before (the same JWS, so the same kid): its payload, read again.
    claims ??= JSON.parse(new TextDecoder().decode(base64url.decode(jws.split('.')[1]))) as Partial<BundleSignaturePayload>;
  } catch (error) {
    const code = failureCode(error);
    const reason = {
      [CardVerifyCode.UnknownKey]: `the bundle is signed with key "${safeKid(header.kid)}", which the pinned JWKS does not hold`,
      [CardVerifyCode.BadSignature]: 'the bundle signature does not verify',
      [CardVerifyCode.KeysUnavailable]: 'the pinned JWKS could not be fetched or read',
    }[code as string];
    return fail(code, reason ?? 'the bundle signature is malformed');
  }
  // Recomputed from the bundle (once per sealed bundle, ADR 0194), never taken from it.
  const hash = nodeBundleContentHash(bundle);
  if (claims.contentHash !== hash)
    return fail(CardVerifyCode.BadSignature, 'the bundle content is not what was signed (contentHash differs)');
  if (claims.agentId !== bundle.agentId || claims.revision !== bundle.revision || claims.epoch !== (bundle.snapshot.epoch ?? '')) {
    return fail(CardVerifyCode.BadSignature, 'the bundle signature names another agent, revision or epoch');
  }
  return { ok: true, kid: header.kid };
}

/** A kid from a header is the sender's text: shown only when it is plain. */
function safeKid(kid: string): string {
  return /^[A-Za-z0-9._:-]{1,64}$/.test(kid) ? kid : '(unprintable)';
}
