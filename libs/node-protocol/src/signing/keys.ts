/**
 * Keys for signing and verifying what the control plane projects (ADR 0130). Verifiers take
 * either a JWKS document they hold or a key getter (jose's createLocalJWKSet /
 * createRemoteJWKSet over a JWKS URL pinned in configuration). A `jku` in a signature's header
 * is never followed: the key comes only from what the verifier was configured with.
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  type CryptoKey,
  type FlattenedVerifyGetKey,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
} from 'jose';
import type { KeyObject } from 'node:crypto';

export const SIGNATURE_ALG = 'ES256';

/** The active key of the control plane's key ring. */
export interface SignatureKey {
  kid: string;
  privateKey: KeyObject | CryptoKey;
}

export type VerificationKeys = JSONWebKeySet | JWTVerifyGetKey;

/** One getter for compact and flattened JWS alike (jose types them apart; the lookup is the same: kid and alg). */
export function keyGetter(keys: VerificationKeys): FlattenedVerifyGetKey {
  const get: JWTVerifyGetKey = typeof keys === 'function' ? keys : createLocalJWKSet(keys);
  return (header, token) => get(header as Parameters<JWTVerifyGetKey>[0], token);
}

/**
 * A JWKS fetched from a pinned URL: cached for `cacheMaxAgeMs`, fetched again on an unknown kid
 * at most once per `cooldownMs` (so a flood of forged kids cannot make us hammer the URL).
 */
export function pinnedJwks(
  url: string,
  options: { cacheMaxAgeMs?: number; cooldownMs?: number; timeoutMs?: number } = {},
): JWTVerifyGetKey {
  return createRemoteJWKSet(new URL(url), {
    cacheMaxAge: options.cacheMaxAgeMs ?? 300_000,
    cooldownDuration: options.cooldownMs ?? 30_000,
    timeoutDuration: options.timeoutMs ?? 5_000,
  });
}
