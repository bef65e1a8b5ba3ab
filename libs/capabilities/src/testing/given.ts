/** Test-data factories (pure, no test framework): `given.manifest({...})` instead of copied fixtures. */
import type { AgentBase, Caller, CapabilityManifest, RegistrySnapshot } from '../types';
import { financeAgentExample } from '../fixtures/finance-agent';

let counter = 0;

export const given = {
  manifest(
    overrides: Partial<Omit<CapabilityManifest, 'skill'>> & { skill?: Partial<CapabilityManifest['skill']> } = {},
  ): CapabilityManifest {
    const n = ++counter;
    const { skill, ...rest } = overrides;
    return {
      id: `capability-${n}`,
      state: 'ga',
      visibility: 'extended',
      requiresScopes: [],
      tenants: '*',
      handler: `team.v1.handler${n}`,
      limits: {},
      owner: 'platform-team',
      ...rest,
      skill: { name: `Capability ${n}`, description: `Does thing number ${n}.`, tags: ['testing'], ...skill },
    };
  },
  agent(overrides: Partial<AgentBase> = {}): AgentBase {
    return { ...financeAgentExample().agent, ...overrides };
  },
  snapshot(manifests: CapabilityManifest[], overrides: Partial<RegistrySnapshot> = {}): RegistrySnapshot {
    return { agentId: 'agent-1', revision: 1, agent: given.agent(), manifests, previewTenants: [], ...overrides };
  },
  caller(overrides: Partial<NonNullable<Caller>> = {}): NonNullable<Caller> {
    return { principal: 'user@acme', tenant: 'acme', scopes: [], ...overrides };
  },
};
