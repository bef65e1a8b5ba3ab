import { generateKeyPairSync } from 'node:crypto';
import { canonicalize as independentJcs } from 'json-canonicalize';
import { base64url, compactVerify, type JSONWebKeySet } from 'jose';
import { given } from '@cp/capabilities/testing';
import { agentsCatalog, CardVerifyCode, signCatalog, verifyCatalogSignature, type AiCatalog, type SignatureKey } from '@cp/node-protocol';

function newKey(kid: string): { key: SignatureKey; jwks: JSONWebKeySet } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { key: { kid, privateKey }, jwks: { keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' }] } };
}
const ours = newKey('cp-2026-12');
const theirs = newKey('attacker');

const catalog = (): AiCatalog =>
  agentsCatalog(
    { displayName: 'Ünïcode host "quoted" \u2028' },
    [
      {
        snapshot: given.snapshot([given.manifest({ visibility: 'public', skill: { tags: ['z', 'a', '€'] } })]),
        teamId: 't',
        updatedAt: '2026-12-01T00:00:00Z',
      },
    ],
    null,
    { identifier: 'acme', displayName: 'Acme' },
  );

describe('the catalog-level signature', () => {
  it('is a detached compact JWS over the JCS form without metadata.signature, checkable with an independent JCS implementation', async () => {
    const signed = await signCatalog(catalog(), ours.key);
    const jws = signed.metadata!.signature as string;
    expect(jws).toMatch(/^[\w-]+\.\.[\w-]+$/);
    // Independent: json-canonicalize (not the product's canonicalize), the signature member removed by hand.
    const { metadata: _m, ...unsigned } = JSON.parse(JSON.stringify(signed)) as AiCatalog;
    const payload = base64url.encode(independentJcs(unsigned));
    const [h, , s] = jws.split('.');
    const { protectedHeader } = await compactVerify(`${h}.${payload}.${s}`, ours.jwks.keys[0] as never);
    expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: 'cp-2026-12' });
    expect(await verifyCatalogSignature(JSON.stringify(signed), ours.jwks)).toEqual({ ok: true, kid: 'cp-2026-12' });
  });

  it('refuses a changed entry, another key, a missing or malformed signature, without throwing', async () => {
    const signed = await signCatalog(catalog(), ours.key);
    const tampered = structuredClone(signed);
    tampered.entries[0].url = 'https://evil.example/.well-known/agent-card.json';
    expect(await verifyCatalogSignature(tampered, ours.jwks)).toMatchObject({ ok: false, code: CardVerifyCode.BadSignature });
    expect(await verifyCatalogSignature(await signCatalog(catalog(), theirs.key), ours.jwks)).toMatchObject({
      ok: false,
      code: CardVerifyCode.UnknownKey,
    });
    expect(await verifyCatalogSignature(catalog(), ours.jwks)).toMatchObject({ ok: false, code: CardVerifyCode.Unsigned });
    for (const bad of ['x', 'a.b.c', 42, '..'])
      expect(await verifyCatalogSignature({ ...signed, metadata: { signature: bad } }, ours.jwks)).toMatchObject({ ok: false });
    expect(await verifyCatalogSignature('{not json', ours.jwks)).toMatchObject({ ok: false, code: CardVerifyCode.Malformed });
  });

  it('keeps other metadata signed alongside the signature', async () => {
    const signed = await signCatalog({ ...catalog(), metadata: { 'com.example.region': 'eu' } }, ours.key);
    expect(await verifyCatalogSignature(signed, ours.jwks)).toMatchObject({ ok: true });
    expect(
      await verifyCatalogSignature({ ...signed, metadata: { ...signed.metadata, 'com.example.region': 'us' } }, ours.jwks),
    ).toMatchObject({
      ok: false,
      code: CardVerifyCode.BadSignature,
    });
  });
});
