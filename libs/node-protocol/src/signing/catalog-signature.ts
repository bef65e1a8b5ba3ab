/**
 * The catalog-level signature (ADR 0250): a detached JWS in compact serialization
 * (`<protected>..<signature>`, RFC 7515 Appendix F) over the RFC 8785 (JCS) form of the catalog
 * without the signature, carried in the catalog's `metadata.signature`. The procedure is the one
 * the AI Catalog text gives for Trust Manifest signatures (remove the signature member,
 * canonicalize, sign detached), applied to the whole document so entries cannot be swapped.
 * ES256 with the control plane key ring's active key; verified against the JWKS only (no `jku`).
 */
import { CompactSign, base64url, compactVerify, decodeProtectedHeader } from 'jose';
import type { AiCatalog } from '../catalog/ai-catalog';
import { jcs } from './card-payload';
import { failureCode, worstFailure, CardVerifyCode } from './card-signature';
import { SIGNATURE_ALG, keyGetter, type SignatureKey, type VerificationKeys } from './keys';

export const CATALOG_SIGNATURE_KEY = 'signature';
export const CATALOG_SIGNATURE_TYP = 'ai-catalog+jws';

const encoder = new TextEncoder();

/** The catalog as signed: `metadata.signature` removed, and `metadata` with it when nothing else is left. */
export function catalogSigningInput(catalog: object): string {
  const { metadata, ...rest } = catalog as { metadata?: unknown };
  if (metadata === undefined || typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return jcs(catalog);
  const { [CATALOG_SIGNATURE_KEY]: _sig, ...others } = metadata as Record<string, unknown>;
  return jcs(Object.keys(others).length > 0 ? { ...rest, metadata: others } : rest);
}

/** The catalog's detached JWS (`<protected>..<signature>`), the value of its `metadata.signature`. */
export async function catalogSignature(catalog: AiCatalog, key: SignatureKey): Promise<string> {
  const payload = encoder.encode(catalogSigningInput(catalog));
  const jws = await new CompactSign(payload)
    .setProtectedHeader({ alg: SIGNATURE_ALG, kid: key.kid, typ: CATALOG_SIGNATURE_TYP })
    .sign(key.privateKey);
  const [header, , signature] = jws.split('.');
  return `${header}..${signature}`;
}

/** The catalog carrying `jws` as its `metadata.signature` (replacing any it had). */
export function withCatalogSignature(catalog: AiCatalog, jws: string): AiCatalog {
  return { ...catalog, metadata: { ...catalog.metadata, [CATALOG_SIGNATURE_KEY]: jws } };
}

/** The catalog with `metadata.signature` (replacing any it had). */
export async function signCatalog(catalog: AiCatalog, key: SignatureKey): Promise<AiCatalog> {
  return withCatalogSignature(catalog, await catalogSignature(catalog, key));
}

export type CatalogVerification = { ok: true; kid: string } | { ok: false; code: CardVerifyCode; reason: string };

/** Verifies the catalog's signature (JSON text or parsed). Never throws. */
export async function verifyCatalogSignature(catalog: unknown, keys: VerificationKeys): Promise<CatalogVerification> {
  let parsed = catalog;
  if (typeof catalog === 'string') {
    try {
      parsed = JSON.parse(catalog);
    } catch {
      return { ok: false, code: CardVerifyCode.Malformed, reason: 'the catalog is not JSON' };
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { ok: false, code: CardVerifyCode.Malformed, reason: 'the catalog is not a JSON object' };
  const metadata = (parsed as { metadata?: unknown }).metadata;
  const jws = typeof metadata === 'object' && metadata !== null ? (metadata as Record<string, unknown>)[CATALOG_SIGNATURE_KEY] : undefined;
  if (jws === undefined) return { ok: false, code: CardVerifyCode.Unsigned, reason: 'the catalog carries no metadata.signature' };
  const parts = typeof jws === 'string' ? jws.split('.') : [];
  if (parts.length !== 3 || parts[1] !== '')
    return { ok: false, code: CardVerifyCode.Malformed, reason: 'metadata.signature is not a detached compact JWS' };
  try {
    const header = decodeProtectedHeader(jws as string);
    if (header.alg !== SIGNATURE_ALG || typeof header.kid !== 'string')
      return { ok: false, code: CardVerifyCode.Malformed, reason: 'the signature is not ES256 with a kid' };
    const payload = base64url.encode(encoder.encode(catalogSigningInput(parsed)));
    await compactVerify(`${parts[0]}.${payload}.${parts[2]}`, keyGetter(keys), { algorithms: [SIGNATURE_ALG] });
    return { ok: true, kid: header.kid };
  } catch (error) {
    const code = worstFailure([failureCode(error)]);
    const reason = {
      [CardVerifyCode.KeysUnavailable]: 'the pinned JWKS could not be fetched or read',
      [CardVerifyCode.BadSignature]: 'the signature does not verify: the catalog is not what was signed',
      [CardVerifyCode.UnknownKey]: 'the signature was not made with a key of the pinned JWKS',
      [CardVerifyCode.Malformed]: `the signature is malformed: ${(error as Error).message}`,
      [CardVerifyCode.Unsigned]: 'the catalog carries no signature',
    }[code];
    return { ok: false, code, reason };
  }
}
