/**
 * Agent card signatures (A2A §8.4): a JWS over the card's canonical payload (card-payload.ts)
 * with a detached payload, protected header `{alg: ES256, kid, typ: JOSE}` and no `jku`.
 */
import { FlattenedSign, base64url, decodeProtectedHeader, errors, flattenedVerify, type FlattenedVerifyGetKey } from 'jose';
import { cardPayloads, cardSigningPayload } from './card-payload';
import { SIGNATURE_ALG, keyGetter, type SignatureKey, type VerificationKeys } from './keys';
import { signedTextId, verifyOnce } from './verified-signatures';

export interface AgentCardSignature {
  protected: string;
  signature: string;
  header?: Record<string, unknown>;
}

export enum CardVerifyCode {
  /** The card has no `signatures`. */
  Unsigned = 'UNSIGNED',
  /** Not a card, or a signature entry is not a JWS. */
  Malformed = 'MALFORMED',
  /** No pinned key has the signature's kid. */
  UnknownKey = 'UNKNOWN_KEY',
  /** A pinned key, but the bytes are not what it signed. */
  BadSignature = 'BAD_SIGNATURE',
  /** The pinned JWKS could not be fetched or read. */
  KeysUnavailable = 'KEYS_UNAVAILABLE',
}

export type CardVerification = { ok: true; kid: string } | { ok: false; code: CardVerifyCode; reason: string };

const encoder = new TextEncoder();

async function signPayload(payload: string, key: SignatureKey): Promise<AgentCardSignature> {
  const jws = await new FlattenedSign(encoder.encode(payload))
    .setProtectedHeader({ alg: SIGNATURE_ALG, kid: key.kid, typ: 'JOSE' })
    .sign(key.privateKey);
  return { protected: jws.protected!, signature: jws.signature };
}

/**
 * The card's signatures: one over the §8.4.1 payload, plus one over the SDKs' reading of it when
 * that differs (cards with empty lists or maps inside lists or maps), so the official clients
 * verify them too. Both with the same key.
 */
export async function cardSignatures(card: object, key: SignatureKey): Promise<AgentCardSignature[]> {
  const { spec, sdk } = cardPayloads(card);
  const signatures = [await signPayload(spec, key)];
  if (sdk !== spec) signatures.push(await signPayload(sdk, key));
  return signatures;
}

/** The card with its `signatures` (replacing any it had). */
export async function signCard<C extends object>(card: C, key: SignatureKey): Promise<C & { signatures: AgentCardSignature[] }> {
  const { signatures: _old, ...unsigned } = card as C & { signatures?: unknown };
  return { ...(unsigned as C), signatures: await cardSignatures(unsigned, key) };
}

/**
 * Verifies a card (JSON text or object): at least one signature must verify, ES256 only, over
 * the §8.4.1 payload of the card as received, with a key from `keys` (never from `jku`). Never throws.
 * Card text this process verified before with the same key material is not verified again (ADR 0345).
 */
export async function verifyCardSignature(card: unknown, keys: VerificationKeys): Promise<CardVerification> {
  if (typeof card !== 'string') return verifyCard(card, keyGetter(keys));
  let result: CardVerification | undefined;
  const kid = await verifyOnce(signedTextId(card), keyGetter(keys), async (getKey) => {
    result = await verifyCard(card, getKey);
    return result.ok ? result.kid : undefined;
  });
  return result ?? { ok: true, kid: kid! };
}

async function verifyCard(card: unknown, getKey: FlattenedVerifyGetKey): Promise<CardVerification> {
  let parsed: unknown = card;
  if (typeof card === 'string') {
    try {
      parsed = JSON.parse(card);
    } catch {
      return { ok: false, code: CardVerifyCode.Malformed, reason: 'the card is not JSON' };
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, code: CardVerifyCode.Malformed, reason: 'the card is not a JSON object' };
  }
  const signatures = (parsed as { signatures?: unknown }).signatures;
  if (signatures === undefined || (Array.isArray(signatures) && signatures.length === 0)) {
    return { ok: false, code: CardVerifyCode.Unsigned, reason: 'the card carries no signatures' };
  }
  if (!Array.isArray(signatures)) return { ok: false, code: CardVerifyCode.Malformed, reason: '"signatures" is not a list' };
  let payload: string;
  try {
    payload = base64url.encode(encoder.encode(cardSigningPayload(parsed)));
  } catch (error) {
    return { ok: false, code: CardVerifyCode.Malformed, reason: `the card does not canonicalize: ${(error as Error).message}` };
  }
  const failures: CardVerifyCode[] = [];
  for (const entry of signatures.slice(0, 8)) {
    const e = entry as Partial<AgentCardSignature> | null;
    if (!e || typeof e.protected !== 'string' || typeof e.signature !== 'string') {
      failures.push(CardVerifyCode.Malformed);
      continue;
    }
    try {
      const header = decodeProtectedHeader({ protected: e.protected, payload: '', signature: e.signature });
      if (header.alg !== SIGNATURE_ALG || typeof header.kid !== 'string') {
        failures.push(CardVerifyCode.Malformed);
        continue;
      }
      await flattenedVerify({ protected: e.protected, signature: e.signature, payload }, getKey, { algorithms: [SIGNATURE_ALG] });
      return { ok: true, kid: header.kid };
    } catch (error) {
      failures.push(failureCode(error));
    }
  }
  const code = worstFailure(failures);
  const reason = {
    [CardVerifyCode.KeysUnavailable]: 'the pinned JWKS could not be fetched or read',
    [CardVerifyCode.BadSignature]: 'no signature verifies: the card is not what was signed',
    [CardVerifyCode.UnknownKey]: 'no signature was made with a key of the pinned JWKS',
    [CardVerifyCode.Malformed]: 'no signature is a well-formed ES256 JWS with a kid',
    [CardVerifyCode.Unsigned]: 'the card carries no signatures',
  }[code];
  return { ok: false, code, reason };
}

export function failureCode(error: unknown): CardVerifyCode {
  if (error instanceof errors.JWKSNoMatchingKey) return CardVerifyCode.UnknownKey;
  if (error instanceof errors.JWSSignatureVerificationFailed) return CardVerifyCode.BadSignature;
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) return CardVerifyCode.KeysUnavailable;
  // fetch's own failures (refused connection, DNS) are not JOSE errors.
  if (!(error instanceof errors.JOSEError)) return CardVerifyCode.KeysUnavailable;
  return CardVerifyCode.Malformed;
}

/** The one code that describes several failed signatures: the most telling first. */
export function worstFailure(failures: readonly CardVerifyCode[]): CardVerifyCode {
  for (const code of [CardVerifyCode.BadSignature, CardVerifyCode.KeysUnavailable, CardVerifyCode.UnknownKey]) {
    if (failures.includes(code)) return code;
  }
  return CardVerifyCode.Malformed;
}
