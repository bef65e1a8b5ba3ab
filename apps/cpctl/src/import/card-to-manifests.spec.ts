/**
 * `cpctl import --from-card`'s mapping (ADR 0276): a card is untrusted input. Every produced
 * document passes the core's validator; ids that are not capability ids are renamed, collisions
 * suffixed, unusable skills skipped with the reason, an oversized skill list refused whole.
 */
import { validateManifest } from '@cp/capabilities';
import { addressProblem, parseImportUrl } from './guarded-fetch';
import { capabilityIdOf, cardToManifests, jsonDepth, MAX_IMPORTED_SKILLS, upstreamOfCard } from './card-to-manifests';

const SOURCE = 'https://recon.example.com/.well-known/agent-card.json';
const card = (skills: unknown[], extra: Record<string, unknown> = {}) => ({
  name: 'Recon service',
  description: 'Reconciles invoices',
  supportedInterfaces: [{ url: 'https://recon.example.com/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['application/json', 'not a media type'],
  skills,
  ...extra,
});
const run = (c: unknown, taken = new Set<string>(), source = SOURCE) => {
  const out = cardToManifests(c, { owner: 'recon-team', source, taken });
  if ('problem' in out) throw new Error(out.problem);
  return out;
};

describe('cardToManifests', () => {
  it('every skill a preview, extended capability forwarded to the card interface', () => {
    const out = run(card([{ id: 'reconcile-invoice', name: 'Reconcile', description: 'Matches an invoice', tags: ['finance'] }]));
    expect(out.upstream).toEqual({ url: 'https://recon.example.com/a2a/jsonrpc', binding: 'jsonrpc', version: '1.0' });
    const [c] = out.capabilities;
    expect(c.document).toEqual({
      id: 'reconcile-invoice',
      state: 'preview',
      visibility: 'extended',
      skill: {
        name: 'Reconcile',
        description: 'Matches an invoice',
        tags: ['finance'],
        inputModes: ['text/plain'],
        outputModes: ['application/json'],
      },
      requires_scopes: [],
      tenants: '*',
      handler: 'gateway.reconcile_invoice',
      limits: {},
      owner: 'recon-team',
      upstream: { url: 'https://recon.example.com/a2a/jsonrpc', binding: 'jsonrpc', version: '1.0' },
    });
    expect(validateManifest(c.document).ok).toBe(true);
  });

  it('keeps the card URL when it is not the default location, and the skill id when it is not a capability id', () => {
    const out = run(
      card([{ id: 'Reconcile_Invoice!', name: 'R', description: 'd', tags: ['t'] }]),
      new Set(),
      'https://cards.example.com/recon.json',
    );
    expect(out.capabilities[0].document.upstream).toMatchObject({
      card: 'https://cards.example.com/recon.json',
      skill: 'Reconcile_Invoice!',
    });
    expect(out.renamed).toEqual([{ skill: 'Reconcile_Invoice!', capabilityId: 'reconcile-invoice' }]);
  });

  it('colliding ids are suffixed (also against ids already taken), duplicates and unusable skills skipped with the reason', () => {
    const out = run(
      card([
        { id: 'a b', name: 'one', description: 'd', tags: ['t'] },
        { id: 'A-B', name: 'two', description: 'd', tags: ['t'] },
        { id: 'A-B', name: 'dup', description: 'd', tags: ['t'] },
        { id: '!!!', name: 'nothing', description: 'd', tags: ['t'] },
        { id: 'x'.repeat(300) },
        { id: 'bad\u0000id' },
        { name: 'no id' },
        'not an object',
        { id: '42', description: 'digits' },
        { id: 'taken' },
      ]),
      new Set(['a-b', 'taken']),
    );
    expect(out.capabilities.map((c) => c.capabilityId)).toEqual(['a-b-2', 'a-b-3', 'skill-42', 'taken-2']);
    expect(out.skipped.map((s) => s.reason)).toEqual([
      'the card lists this skill id twice (the first is imported)',
      'no capability id can be made from its id',
      'its id is longer than 256 characters or holds control characters',
      'its id is longer than 256 characters or holds control characters',
      'has no id',
      'has no id',
    ]);
    for (const c of out.capabilities) expect(validateManifest(c.document).ok).toBe(true);
  });

  it('bounds and cleans hostile text: names, tags, examples, modes', () => {
    const out = run(
      card([
        {
          id: 'x',
          name: `  ${'n'.repeat(5000)}\u0007 `,
          description: '',
          tags: ['', 'a'.repeat(100), 'dup', 'dup', 7],
          examples: Array.from({ length: 50 }, (_, i) => `example ${i}`),
          inputModes: ['text/plain', 'nope'],
        },
      ]),
    );
    const { skill } = out.capabilities[0].document;
    expect(skill.name).toHaveLength(200);
    expect(skill.description).toBe('Reconciles invoices');
    expect(skill.tags).toEqual(['a'.repeat(64), 'dup']);
    expect(skill.examples).toHaveLength(10);
    expect(skill.inputModes).toEqual(['text/plain']);
  });

  it(`refuses a card with more than ${MAX_IMPORTED_SKILLS} skills (10,000 here) rather than cutting it`, () => {
    const big = card(Array.from({ length: 10_000 }, (_, i) => ({ id: `s-${i}`, name: 'n', description: 'd', tags: ['t'] })));
    expect(cardToManifests(big, { owner: 'o', source: SOURCE, taken: new Set() })).toEqual({
      problem: `the card of "Recon service" lists 10000 skills; one import takes at most ${MAX_IMPORTED_SKILLS}`,
    });
  });

  it('refuses what is not a card, names why', () => {
    expect(cardToManifests([], { owner: 'o', source: SOURCE, taken: new Set() })).toEqual({ problem: 'the card is not a JSON object' });
    expect(cardToManifests({ name: 'x' }, { owner: 'o', source: SOURCE, taken: new Set() })).toEqual({
      problem: 'the card of "x" has no skills list',
    });
  });
});

describe('upstreamOfCard', () => {
  it('takes the first interface the node speaks, 1.0 or 0.3, and refuses unsafe URLs', () => {
    expect(
      upstreamOfCard({
        supportedInterfaces: [
          { url: 'https://a.example.com/grpc', protocolBinding: 'GRPC', protocolVersion: '1.0' },
          { url: 'https://a.example.com/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        ],
      }),
    ).toEqual({ url: 'https://a.example.com/rest', binding: 'http+json', version: '1.0' });
    expect(upstreamOfCard({ url: 'https://old.example.com/a2a', protocolVersion: '0.3.0' })).toEqual({
      url: 'https://old.example.com/a2a',
      binding: 'jsonrpc',
      version: '0.3',
    });
    expect(
      upstreamOfCard({ supportedInterfaces: [{ url: 'http://169.254.169.254/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] }),
    ).toEqual({ problem: expect.stringMatching(/no usable interface.*linkLocal/) });
    expect(
      upstreamOfCard({
        supportedInterfaces: [{ url: 'https://a.example.com/a2a?x=1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      }),
    ).toEqual({
      problem: expect.stringMatching(/query string/),
    });
    expect(upstreamOfCard({})).toEqual({ problem: expect.stringMatching(/lists no JSON-RPC or HTTP\+JSON interface/) });
    expect(
      upstreamOfCard({ supportedInterfaces: [{ url: 'https://a.example.com', protocolBinding: 'JSONRPC', protocolVersion: '2.0' }] }),
    ).toEqual({
      problem: expect.any(String),
    });
  });
});

describe('capabilityIdOf, jsonDepth and the URL guard', () => {
  it('makes capability ids', () => {
    expect(capabilityIdOf('Reconcile Invoice')).toBe('reconcile-invoice');
    expect(capabilityIdOf('ünïcödé')).toBe('unicode');
    expect(capabilityIdOf('9lives')).toBe('skill-9lives');
    expect(capabilityIdOf('x'.repeat(100))).toHaveLength(64);
    expect(capabilityIdOf('---')).toBeUndefined();
  });

  it('measures depth without parsing, strings and escapes ignored', () => {
    expect(jsonDepth('{"a":[1,{"b":"[[[[\\"]]"}]}')).toBe(3);
    expect(jsonDepth('['.repeat(100_000))).toBe(100_000);
  });

  it('refuses bad URLs and non-public addresses unless allowed, metadata and link-local never', () => {
    for (const bad of ['ftp://x.example.com/card', 'https://user:pw@x.example.com/', 'not a url', 'http://metadata.google.internal/'])
      expect(() => parseImportUrl(bad)).toThrow();
    // Numeric host forms are normalised by the URL parser, then checked as the address they are.
    expect(parseImportUrl('http://2130706433/').hostname).toBe('127.0.0.1');
    expect(parseImportUrl('http://0x7f.1/').hostname).toBe('127.0.0.1');
    expect(() => parseImportUrl(`https://x.example.com/${'a'.repeat(3000)}`)).toThrow(/longer than 2048/);
    expect(addressProblem('127.0.0.1', false)).toMatch(/--allow-private/);
    expect(addressProblem('10.1.2.3', false)).toMatch(/private/);
    expect(addressProblem('127.0.0.1', true)).toBeUndefined();
    expect(addressProblem('169.254.169.254', true)).toMatch(/never/);
    expect(addressProblem('::ffff:169.254.169.254', true)).toMatch(/never/);
    expect(addressProblem('fd00:ec2::254', true)).toMatch(/metadata/);
    expect(addressProblem('93.184.216.34', false)).toBeUndefined();
  });
});
