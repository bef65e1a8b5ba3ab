/**
 * Database factories for e2e suites: `const given = givenDb(db.url)` then `await given.team()`,
 * `given.agent({ teamId })`, `given.manifest(agent, {...})`, `given.tenant()`, `given.scope()`,
 * `given.optIn(tenantId, agentId)`, `given.usage(...)`, `given.node(agentId)`, `given.inventory(agentId, handlers)`, `given.notice({...})`. Each returns what it
 * wrote; ids are unique per call unless given (`financeExample()` uses the seed's fixed ids: once per database). Writes bypass the API on purpose (arrange, not act).
 * Call `given.close()` in afterAll. The set-based SQL factories (lifecycle manifests, nodes with
 * coverage, usage, batches, inventories, notices) are in given-sql.ts and exported from here too.
 */
import { randomBytes } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import { financeAgentExample, type AgentBase, type CapabilityManifest, type RegistrySnapshot } from '@cp/capabilities';
import { given as core } from '@cp/capabilities/testing';
import { agentColumns, manifestColumns } from '@cp/db';
import { PrismaClient } from '../../prisma/generated/client';

export * from './given-sql';

const unique = (prefix: string) => `${prefix}-${randomBytes(3).toString('hex')}`;

/** The CHECK constraints want lifecycle times for deprecated and removed manifests. */
const lifecycleStamps = (m: CapabilityManifest) => ({
  deprecatedAt: m.state === 'deprecated' || m.state === 'removed' ? new Date() : null,
  removedAt: m.state === 'removed' ? new Date() : null,
});

/**
 * A registry snapshot as stored at revision 1 under `agentId`: its manifests' teams, the scopes they
 * require, the agent (owned by the first manifest's team) and its manifests (the learning benches).
 */
export async function storeSnapshot(prisma: PrismaClient, agentId: string, snapshot: RegistrySnapshot): Promise<void> {
  const { manifests } = snapshot;
  for (const owner of new Set(manifests.map((m) => m.owner))) await prisma.team.create({ data: { id: owner, name: owner } });
  await prisma.scope.createMany({
    data: [...new Set(manifests.flatMap((m) => m.requiresScopes))].map((name) => ({ name, description: name })),
  });
  await prisma.agent.create({ data: { id: agentId, teamId: manifests[0].owner, revision: 1, ...agentColumns(snapshot.agent) } });
  await prisma.capabilityManifest.createMany({ data: manifests.map((m) => ({ agentId, ...manifestColumns(m), ...lifecycleStamps(m) })) });
}

export interface GivenAgent {
  id: string;
  teamId: string;
  revision: number;
  base: AgentBase;
}

export function givenDb(url: string) {
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 2 }) });

  const api = {
    prisma,

    async team(overrides: { id?: string; name?: string } = {}) {
      const id = overrides.id ?? unique('team');
      return prisma.team.create({ data: { id, name: overrides.name ?? `Team ${id}` } });
    },

    async tenant(overrides: { id?: string; name?: string } = {}) {
      const id = overrides.id ?? unique('tenant');
      return prisma.tenant.create({ data: { id, name: overrides.name ?? `Tenant ${id}` } });
    },

    async scope(overrides: { name?: string; description?: string } = {}) {
      const name = overrides.name ?? `scope.${randomBytes(3).toString('hex')}`;
      return prisma.scope.create({ data: { name, description: overrides.description ?? `the ${name} scope` } });
    },

    /** An agent (the finance example's base unless overridden) in a team created on the fly when not given. */
    async agent(overrides: { id?: string; teamId?: string; revision?: number; base?: Partial<AgentBase> } = {}): Promise<GivenAgent> {
      const teamId = overrides.teamId ?? (await api.team()).id;
      const id = overrides.id ?? unique('agent');
      const base: AgentBase = { ...financeAgentExample().agent, ...overrides.base };
      const row = await prisma.agent.create({ data: { id, teamId, revision: overrides.revision ?? 1, ...agentColumns(base) } });
      return { id, teamId, revision: row.revision, base };
    },

    /** A manifest (the core factory's defaults: ga, extended, unique id and handler; owned by the agent's team unless overridden). */
    async manifest(agent: Pick<GivenAgent, 'id' | 'teamId'>, overrides: Partial<CapabilityManifest> = {}): Promise<CapabilityManifest> {
      const manifest = core.manifest({ owner: agent.teamId, ...overrides });
      await prisma.capabilityManifest.create({ data: { agentId: agent.id, ...manifestColumns(manifest), ...lifecycleStamps(manifest) } });
      return manifest;
    },

    async manifests(
      agent: Pick<GivenAgent, 'id' | 'teamId'>,
      count: number,
      overrides: (i: number) => Partial<CapabilityManifest> = () => ({}),
    ) {
      const list = Array.from({ length: count }, (_, i) =>
        core.manifest({ id: `cap-${String(i).padStart(5, '0')}`, owner: agent.teamId, ...overrides(i) }),
      );
      await prisma.capabilityManifest.createMany({
        data: list.map((m) => ({ agentId: agent.id, ...manifestColumns(m), ...lifecycleStamps(m) })),
      });
      return list;
    },

    /** The seed's worked example (finance agent, its team, tenants and scope) at revision 1. */
    async financeExample(agentId = 'finance-agent') {
      const example = financeAgentExample();
      const team = await api.team({ id: example.manifests[0].owner });
      await prisma.tenant.createMany({
        data: [
          { id: example.tenants.partner, name: 'Acme' },
          { id: example.tenants.other, name: 'Globex' },
        ],
        skipDuplicates: true,
      });
      await prisma.scope.createMany({ data: [{ name: example.scopes.reconRun, description: 'recon' }], skipDuplicates: true });
      const agent = await api.agent({ id: agentId, teamId: team.id, base: example.agent });
      for (const m of example.manifests) await api.manifest(agent, m);
      return { agent, example };
    },

    async optIn(tenantId: string, agentId: string) {
      return prisma.previewOptIn.create({ data: { tenantId, agentId } });
    },

    async node(agentId: string, id = unique('node')) {
      return prisma.node.create({ data: { id, agentId } });
    },

    /** A live node's handler inventory (reported now unless given): what the servability gates read. */
    async inventory(agentId: string, handlers: string[], overrides: { nodeId?: string; reportedAt?: Date; stoppedAt?: Date | null } = {}) {
      return prisma.nodeInventory.create({
        data: {
          agentId,
          nodeId: overrides.nodeId ?? unique('node'),
          handlers: handlers.map((id) => ({ id, limits: {}, outputModes: [] })),
          reportedAt: overrides.reportedAt ?? new Date(),
          stoppedAt: overrides.stoppedAt ?? null,
        },
      });
    },

    /** A deprecation notice to one tenant (pending unless given; a dead one has used its attempts). */
    async notice(row: {
      tenantId: string;
      agentId: string;
      capabilityId: string;
      status?: 'pending' | 'delivered' | 'dead';
      lastError?: string;
    }) {
      const id = unique('notice');
      return prisma.deprecationNotice.create({
        data: {
          id,
          tenantId: row.tenantId,
          agentId: row.agentId,
          capabilityId: row.capabilityId,
          event: 'capability.deprecated',
          eventKey: id,
          payload: { type: 'capability.deprecated', capability: row.capabilityId },
          status: row.status ?? 'pending',
          attempts: row.status === 'dead' ? 8 : 0,
          lastError: row.lastError ?? (row.status === 'dead' ? 'the endpoint answered HTTP 500' : null),
          deliveredAt: row.status === 'delivered' ? new Date() : null,
        },
      });
    },

    /** Calls of one capability by one tenant on one day (UTC date `YYYY-MM-DD`). */
    async usage(row: {
      agentId: string;
      capabilityId: string;
      tenantId: string;
      nodeId: string;
      day: string;
      count: number;
      lastCallAt?: Date;
    }) {
      return prisma.usageBucket.create({
        data: {
          ...row,
          day: new Date(`${row.day}T00:00:00Z`),
          count: BigInt(row.count),
          lastCallAt: row.lastCallAt ?? new Date(`${row.day}T12:00:00Z`),
        },
      });
    },

    async revisionOf(agentId: string): Promise<number> {
      return (await prisma.agent.findUniqueOrThrow({ where: { id: agentId }, select: { revision: true } })).revision;
    },

    async close() {
      await prisma.$disconnect();
    },
  };
  return api;
}

export type GivenDb = ReturnType<typeof givenDb>;
