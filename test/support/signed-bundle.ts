/**
 * A node bundle signed the way the control plane signs it, with a fresh key, written to a node's
 * disk cache together with the JWKS the node keeps there (ADR 0130): what a node restarted while
 * the control plane is away finds, for suites and benchmarks that start a node without one.
 */
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JSONWebKeySet } from 'jose';
import type { NodeBundle } from '@cp/capabilities';
import { signNodeBundle, type SignatureKey } from '@cp/node-protocol';

/** A fresh ES256 signing key and the JWKS that publishes it (`kid` on both). */
export function testSigningKey(kid = 'test-key'): { key: SignatureKey; jwks: JSONWebKeySet } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    key: { kid, privateKey },
    jwks: { keys: [{ ...(publicKey.export({ format: 'jwk' }) as JSONWebKeySet['keys'][number]), kid, alg: 'ES256', use: 'sig' }] },
  };
}

export async function writeSignedBundle(cacheDir: string, bundle: NodeBundle): Promise<NodeBundle> {
  const { key, jwks } = testSigningKey();
  const signed = await signNodeBundle(bundle, key);
  writeFileSync(join(cacheDir, `${bundle.agentId}.bundle.json`), JSON.stringify(signed));
  writeFileSync(join(cacheDir, `${bundle.agentId}.jwks.json`), JSON.stringify(jwks));
  return signed;
}
