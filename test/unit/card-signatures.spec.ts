import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { canonicalize as independentJcs } from 'json-canonicalize';
import { base64url, exportJWK, flattenedVerify, FlattenedSign, type JSONWebKeySet } from 'jose';
import { canonicalizeAgentCard, verifyAgentCardSignature, type AgentCard as SdkAgentCard } from '@a2a-js/sdk';
import {
  cardPayloads,
  cardSigningPayload,
  CardVerifyCode,
  jcs,
  sdkCompatiblePayload,
  signCard,
  verifyCardSignature,
  type AgentCardSignature,
  type SignatureKey,
} from '@cp/node-protocol';

function newKey(kid: string): { key: SignatureKey; jwks: JSONWebKeySet } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  return { key: { kid, privateKey }, jwks: { keys: [{ ...jwk, kid, alg: 'ES256', use: 'sig' }] } };
}
const ours = newKey('cp-2026-12');
const theirs = newKey('attacker');

// Text that exercises JCS: any code point (astral, combining, bidi, controls), quotes, escapes.
const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 8 }), fc.constant(''));
const nonEmpty = fc.string({ unit: 'binary', minLength: 1, maxLength: 12 });
const number = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1e21, 1e-7, 5e-324, 2 ** 53, 0.1 + 0.2),
);
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, text, number, fc.boolean(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 3 }),
  object: fc.dictionary(text, tie('value'), { maxKeys: 3 }),
})).value;
const list = (arb: fc.Arbitrary<string>) => fc.array(arb, { maxLength: 3 });
const skill = fc.record(
  {
    id: nonEmpty,
    name: nonEmpty,
    description: text,
    tags: list(nonEmpty),
    examples: list(text),
    inputModes: list(nonEmpty),
    outputModes: list(nonEmpty),
  },
  { requiredKeys: ['id', 'name', 'description', 'tags'] },
);
const cardArb = fc.record(
  {
    name: nonEmpty,
    description: text,
    version: nonEmpty,
    supportedInterfaces: fc.array(
      fc.record({ url: nonEmpty, protocolBinding: fc.constantFrom('JSONRPC', 'HTTP+JSON'), protocolVersion: fc.constant('1.0') }),
      { minLength: 1, maxLength: 2 },
    ),
    provider: fc.record({ organization: nonEmpty, url: nonEmpty }),
    documentationUrl: text,
    iconUrl: text,
    capabilities: fc.record(
      {
        streaming: fc.boolean(),
        pushNotifications: fc.boolean(),
        extendedAgentCard: fc.boolean(),
        extensions: fc.array(
          fc.record(
            { uri: nonEmpty, description: text, required: fc.boolean(), params: fc.dictionary(nonEmpty, json, { maxKeys: 3 }) },
            { requiredKeys: ['uri'] },
          ),
          { maxLength: 2 },
        ),
      },
      { requiredKeys: [] },
    ),
    securitySchemes: fc.dictionary(nonEmpty, fc.record({ httpAuthSecurityScheme: fc.record({ scheme: nonEmpty, bearerFormat: text }) }), {
      maxKeys: 2,
    }),
    securityRequirements: fc.array(fc.record({ schemes: fc.dictionary(nonEmpty, fc.record({ list: list(nonEmpty) }), { maxKeys: 2 }) }), {
      maxLength: 2,
    }),
    defaultInputModes: list(nonEmpty),
    defaultOutputModes: list(nonEmpty),
    skills: fc.array(skill, { maxLength: 3 }),
  },
  {
    requiredKeys: [
      'name',
      'description',
      'version',
      'supportedInterfaces',
      'capabilities',
      'defaultInputModes',
      'defaultOutputModes',
      'skills',
    ],
  },
);

/** The same JSON with every object's keys in reverse order (JCS must not care). */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (typeof value !== 'object' || value === null) return value;
  // fromEntries defines own properties: assigning out["__proto__"] would set the prototype and lose the key.
  return Object.fromEntries(
    Object.keys(value)
      .reverse()
      .map((k) => [k, reordered((value as Record<string, unknown>)[k])]),
  );
}

const encoder = new TextEncoder();

// The SDK's hook logs every signature entry it tries and rejects (console.debug).
beforeAll(() => jest.spyOn(console, 'debug').mockImplementation(() => undefined));
afterAll(() => jest.restoreAllMocks());

describe('card canonicalisation and signatures (A2A §8.4)', () => {
  it('canonical bytes are RFC 8785 by an independent implementation, for random JSON and random cards', () => {
    fc.assert(
      fc.property(json, (value) => {
        const parsed = JSON.parse(JSON.stringify(value ?? null)) as unknown;
        expect(jcs(parsed)).toBe(independentJcs(parsed));
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(cardArb, (card) => {
        const payload = cardSigningPayload(card);
        // A JCS output canonicalizes to itself under the other implementation, whatever the key order it came in.
        expect(independentJcs(JSON.parse(payload))).toBe(payload);
        expect(cardSigningPayload(reordered(card))).toBe(payload);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps a "__proto__" key of extension params as data, in any key order (the counterexample fast-check found)', () => {
    const card = {
      name: 'A',
      description: '',
      version: '1',
      supportedInterfaces: [{ url: 'https://a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { extensions: [{ uri: 'urn:x', params: JSON.parse('{"__proto__": false, "b": 1}') as Record<string, unknown> }] },
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [],
    };
    const payload = cardSigningPayload(card);
    expect(payload).toContain('"params":{"__proto__":false,"b":1}');
    expect(cardSigningPayload(reordered(card) as never)).toBe(payload);
    // The SDK drops such a member when it canonicalizes (it rebuilds objects by assignment): the
    // one-pass signer's SDK-compatible bytes must do the same, nested too, or that signature fails.
    for (const params of ['{"__proto__": false, "b": 1}', '{"x": {"__proto__": {"y": 2}}, "b": 1}']) {
      const nested = { ...card, capabilities: { extensions: [{ uri: 'urn:x', params: JSON.parse(params) as Record<string, unknown> }] } };
      expect(cardPayloads(nested as never)).toEqual({
        spec: cardSigningPayload(nested as never),
        sdk: canonicalizeAgentCard(nested as unknown as SdkAgentCard),
      });
    }
  });

  it('follows §8.4.1 presence rules: REQUIRED kept, optional set kept, empty non-REQUIRED lists and maps dropped', () => {
    const card = {
      name: 'Example Agent',
      description: '',
      capabilities: { streaming: false, pushNotifications: false, extensions: [] },
      skills: [],
      signatures: [{ protected: 'x', signature: 'y' }],
    };
    // The specification's own example.
    expect(cardSigningPayload(card)).toBe(
      '{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}',
    );
    expect(cardSigningPayload({ ...card, securityRequirements: [{ schemes: { bearer: { list: [] } } }, {}] })).toContain(
      '"securityRequirements":[{"schemes":{"bearer":{}}},{}]',
    );
  });

  it('the SDK-compatible bytes are what @a2a-js/sdk canonicalizeAgentCard computes, over random cards', () => {
    fc.assert(
      fc.property(cardArb, (card) => {
        expect(sdkCompatiblePayload(card)).toBe(canonicalizeAgentCard(card as unknown as SdkAgentCard));
      }),
      { numRuns: 200 },
    );
  });

  it('the signer computes both payloads in one pass, byte-identical to each on its own (and to the SDK), over random cards', () => {
    let differing = 0;
    fc.assert(
      fc.property(cardArb, (card) => {
        const both = cardPayloads(card);
        expect(both).toEqual({ spec: cardSigningPayload(card), sdk: sdkCompatiblePayload(card) });
        expect(both.sdk).toBe(canonicalizeAgentCard(card as unknown as SdkAgentCard));
        if (both.sdk !== both.spec) differing++;
      }),
      { numRuns: 300 },
    );
    expect(differing).toBeGreaterThan(0);
    // Members outside the schema, with any key (unicode, empty, astral: UTF-16 order matters).
    fc.assert(
      fc.property(cardArb, fc.dictionary(text, json, { maxKeys: 4 }), (card, extra) => {
        const wider = { ...extra, ...card };
        expect(cardPayloads(wider)).toEqual({ spec: cardSigningPayload(wider), sdk: sdkCompatiblePayload(wider) });
      }),
      { numRuns: 300 },
    );
    // A card without any empty: the SDK reads it alike, and one set of bytes serves both.
    const plain = {
      name: 'Agent',
      description: 'd',
      version: '1',
      supportedInterfaces: [{ url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['application/json'],
      skills: [{ id: 's', name: 'n', description: 'd', tags: ['t'] }],
    };
    const both = cardPayloads(plain);
    expect(both).toEqual({ spec: cardSigningPayload(plain), sdk: cardSigningPayload(plain) });
    expect(both.sdk).toBe(canonicalizeAgentCard(plain as unknown as SdkAgentCard));
    expect(cardPayloads({ ...plain, skills: [{ ...plain.skills[0], examples: [''] }] }).sdk).not.toBe(
      cardSigningPayload({ ...plain, skills: [{ ...plain.skills[0], examples: [''] }] }),
    );
  });

  it('signatures verify with jose over independently canonicalized bytes, and with the official SDK hook', async () => {
    await fc.assert(
      fc.asyncProperty(cardArb, async (card) => {
        const signed = await signCard(card, ours.key);
        const [first] = signed.signatures;
        const header = JSON.parse(Buffer.from(first.protected, 'base64url').toString('utf8')) as Record<string, unknown>;
        expect(header).toEqual({ alg: 'ES256', kid: 'cp-2026-12', typ: 'JOSE' });
        // Independent: jose alone, payload from json-canonicalize of the card as §8.4.1 reduces it.
        const independentPayload = independentJcs(JSON.parse(cardSigningPayload(card)));
        await expect(
          flattenedVerify({ ...first, payload: base64url.encode(encoder.encode(independentPayload)) }, ours.jwks.keys[0] as never),
        ).resolves.toBeDefined();
        // Ours, and the official client's hook, on the card as a client receives it (JSON text).
        const received = JSON.parse(JSON.stringify(signed)) as unknown;
        expect(await verifyCardSignature(received, ours.jwks)).toEqual({ ok: true, kid: 'cp-2026-12' });
        const sdkVerify = verifyAgentCardSignature(async () => ours.jwks.keys[0]);
        await expect(sdkVerify(received as SdkAgentCard)).resolves.toBeUndefined();
        // Re-serialised with another key order: JCS gives the same bytes, so it still verifies.
        expect((await verifyCardSignature(reordered(received), ours.jwks)).ok).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('a card changed by one character fails, in our verifier and in the SDK hook', async () => {
    const silence = jest.spyOn(console, 'debug').mockImplementation(() => undefined);
    try {
      await fc.assert(
        fc.asyncProperty(cardArb, fc.nat(), async (card, at) => {
          const signed = await signCard(card, ours.key);
          const text = JSON.stringify(signed);
          // One character of the card's name (always present, REQUIRED) replaced.
          const chars = Array.from(signed.name);
          const i = at % chars.length;
          chars[i] = chars[i] === 'x' ? 'y' : 'x';
          const changed = chars.join('');
          const tampered = { ...(JSON.parse(text) as object), name: changed };
          const result = await verifyCardSignature(tampered, ours.jwks);
          expect(result).toMatchObject({ ok: false, code: CardVerifyCode.BadSignature });
          const sdkVerify = verifyAgentCardSignature(async () => ours.jwks.keys[0]);
          await expect(sdkVerify(tampered as unknown as SdkAgentCard)).rejects.toThrow(/No valid signatures/);
        }),
        { numRuns: 40 },
      );
    } finally {
      silence.mockRestore();
    }
  });

  it('refuses unsigned cards, unknown keys, another alg, and never follows a jku', async () => {
    const card = { name: 'Agent', description: 'd', version: '1', supportedInterfaces: [], capabilities: {}, skills: [] };
    expect(await verifyCardSignature(card, ours.jwks)).toMatchObject({ ok: false, code: CardVerifyCode.Unsigned });
    expect(await verifyCardSignature('{not json', ours.jwks)).toMatchObject({ ok: false, code: CardVerifyCode.Malformed });
    expect(await verifyCardSignature({ ...card, signatures: 'x' }, ours.jwks)).toMatchObject({ ok: false, code: CardVerifyCode.Malformed });
    // Signed by a key the verifier does not pin, naming a jku that would serve that key.
    const forged = await new FlattenedSign(encoder.encode(cardSigningPayload(card)))
      .setProtectedHeader({ alg: 'ES256', kid: 'attacker', typ: 'JOSE', jku: 'https://attacker.example/jwks.json' })
      .sign(theirs.key.privateKey);
    const withJku: AgentCardSignature = { protected: forged.protected!, signature: forged.signature };
    expect(await verifyCardSignature({ ...card, signatures: [withJku] }, ours.jwks)).toMatchObject({
      ok: false,
      code: CardVerifyCode.UnknownKey,
    });
    // The attacker reuses our kid: the pinned key does not verify it.
    const reusedKid = await new FlattenedSign(encoder.encode(cardSigningPayload(card)))
      .setProtectedHeader({ alg: 'ES256', kid: 'cp-2026-12', typ: 'JOSE' })
      .sign(theirs.key.privateKey);
    expect(
      await verifyCardSignature({ ...card, signatures: [{ protected: reusedKid.protected!, signature: reusedKid.signature }] }, ours.jwks),
    ).toMatchObject({ ok: false, code: CardVerifyCode.BadSignature });
    // alg none and HS256 (with the public key's bytes as a secret) are not ES256: refused.
    const none = Buffer.from(JSON.stringify({ alg: 'none', kid: 'cp-2026-12' })).toString('base64url');
    expect(await verifyCardSignature({ ...card, signatures: [{ protected: none, signature: '' }] }, ours.jwks)).toMatchObject({
      ok: false,
      code: CardVerifyCode.Malformed,
    });
    const hs = await new FlattenedSign(encoder.encode(cardSigningPayload(card)))
      .setProtectedHeader({ alg: 'HS256', kid: 'cp-2026-12', typ: 'JOSE' })
      .sign(encoder.encode(JSON.stringify(await exportJWK(ours.key.privateKey))));
    expect(
      await verifyCardSignature({ ...card, signatures: [{ protected: hs.protected!, signature: hs.signature }] }, ours.jwks),
    ).toMatchObject({
      ok: false,
    });
  });
});
