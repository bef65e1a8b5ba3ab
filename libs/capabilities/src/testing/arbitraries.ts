/** fast-check arbitraries for property tests: valid manifests, registries, snapshots, callers. */
import fc from 'fast-check';
import { financeAgentExample } from '../fixtures/finance-agent';
import type { Caller, CapabilityManifest, CapabilityState, RegistrySnapshot, Visibility } from '../types';

export const TENANTS = ['acme', 'globex', 'initech', 'umbrella'] as const;
export const SCOPES = ['recon.run', 'invoices.read', 'reports.view', 'admin.all'] as const;
// Tag and word vocabularies are disjoint and no entry is a substring of another, so the leak
// check cannot fire by accident on generated text.
const TAGS = ['tag-finance', 'tag-ops', 'tag-hr', 'tag-legal', 'tag-sales'] as const;
const WORDS = ['matches', 'lists', 'returns', 'orders', 'differences', 'quickly'] as const;
const MODES = ['text/plain', 'application/pdf', 'application/json', 'image/png'] as const;
const STATES: CapabilityState[] = ['preview', 'ga', 'deprecated', 'removed'];
const VISIBILITIES: Visibility[] = ['public', 'extended', 'internal'];

const pad = (i: number) => `cap-${String(i).padStart(4, '0')}`;
const words = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }).map((w) => w.join(' '));
const modes = fc.option(fc.subarray([...MODES], { minLength: 1 }), { nil: undefined });

/** Everything but id and replacement, which depend on the rest of the registry. */
const shapeArb = fc.record({
  state: fc.constantFrom(...STATES),
  visibility: fc.constantFrom(...VISIBILITIES),
  scopes: fc.subarray([...SCOPES], { maxLength: 2 }),
  tenants: fc.oneof(fc.constant<'*'>('*'), fc.subarray([...TENANTS], { minLength: 1, maxLength: 2 })),
  tags: fc.subarray([...TAGS], { minLength: 1, maxLength: 2 }),
  examples: fc.option(fc.integer({ min: 1, max: 2 }), { nil: undefined }),
  text: words,
  inputModes: modes,
  outputModes: modes,
  replacement: fc.option(fc.nat(), { nil: undefined }),
  limits: fc.record({ cost_class: fc.constantFrom('low', 'medium', 'high'), max_items: fc.nat(1000) }, { requiredKeys: [] }),
});
type Shape = typeof shapeArb extends fc.Arbitrary<infer T> ? T : never;

function toManifest(s: Shape, i: number, count: number): CapabilityManifest {
  const id = pad(i);
  const open = s.visibility === 'public';
  const m: CapabilityManifest = {
    id,
    state: s.state,
    visibility: s.visibility,
    skill: {
      name: `Skill ${id}`,
      description: `Description of ${id}: ${s.text}.`,
      tags: s.tags,
      ...(s.examples ? { examples: Array.from({ length: s.examples }, (_, k) => `Example ${k} for ${id}`) } : {}),
      ...(s.inputModes ? { inputModes: s.inputModes } : {}),
      ...(s.outputModes ? { outputModes: s.outputModes } : {}),
    },
    // Validation refuses scopes/tenants on public capabilities.
    requiresScopes: open ? [] : s.scopes,
    tenants: open ? '*' : s.tenants,
    handler: `team.v1.handler_${i % 97}`,
    limits: s.limits,
    owner: 'platform-team',
  };
  if (s.state === 'deprecated' || s.state === 'removed') {
    const target = s.replacement !== undefined && count > 1 ? (i + 1 + (s.replacement % (count - 1))) % count : undefined;
    if (target !== undefined) m.replacedBy = pad(target);
    if (target === undefined || s.replacement! % 3 === 0) m.deprecationReason = `Retired: ${s.text}.`;
  }
  return m;
}

/** One valid manifest (replacement ids may not exist: single-document validity only). */
export const manifestArb = () => fc.tuple(shapeArb, fc.nat(9999)).map(([s, i]) => toManifest(s, i, 10000));

export const registryArb = (maxLength = 2000) =>
  fc
    .integer({ min: 0, max: maxLength })
    .chain((n) =>
      fc.array(shapeArb, { minLength: n, maxLength: n }).map((shapes) => shapes.map((s, i) => toManifest(s, i, shapes.length))),
    );

export const callerArb: fc.Arbitrary<Caller> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  {
    weight: 4,
    arbitrary: fc.record({
      principal: fc.constantFrom('alice', 'bob', 'carol'),
      tenant: fc.constantFrom(...TENANTS, 'stranger'),
      scopes: fc.subarray([...SCOPES, 'unused.scope']),
    }),
  },
);

export const snapshotArb = (maxLength = 2000): fc.Arbitrary<RegistrySnapshot> =>
  fc
    .record({
      manifests: registryArb(maxLength),
      previewTenants: fc.subarray([...TENANTS]),
      extendedSwitch: fc.boolean(),
    })
    .map(({ manifests, previewTenants, extendedSwitch }) => {
      const agent = financeAgentExample().agent;
      return {
        agentId: 'agent-under-test',
        revision: 7,
        agent: { ...agent, protocol: { ...agent.protocol, extendedAgentCard: extendedSwitch } },
        manifests,
        previewTenants,
      };
    });
