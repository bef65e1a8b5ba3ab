/**
 * A catalog signature checked without the product's code (ADR 0250, 0315): `metadata.signature`
 * removed by hand (and `metadata` when nothing else is left), the rest canonicalized with
 * json-canonicalize (not the `canonicalize` package the product signs with), the detached JWS
 * verified with jose alone against the JWKS the test pins. Throws when it does not verify.
 */
import { canonicalize as independentJcs } from 'json-canonicalize';
import { base64url, compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';

export async function verifyCatalogIndependently(text: string, jwks: JSONWebKeySet): Promise<{ kid: string; alg: string }> {
  const doc = JSON.parse(text) as { metadata?: Record<string, unknown> };
  const jws = doc.metadata?.signature;
  if (typeof jws !== 'string') throw new Error('the catalog carries no metadata.signature');
  const { signature: _s, ...others } = doc.metadata!;
  const unsigned: Record<string, unknown> = { ...doc };
  if (Object.keys(others).length > 0) unsigned.metadata = others;
  else delete unsigned.metadata;
  const [header, detached, signature] = jws.split('.');
  if (detached !== '') throw new Error('the signature is not detached');
  const payload = base64url.encode(independentJcs(unsigned));
  const { protectedHeader } = await compactVerify(`${header}.${payload}.${signature}`, createLocalJWKSet(jwks));
  return { kid: String(protectedHeader.kid), alg: protectedHeader.alg };
}
