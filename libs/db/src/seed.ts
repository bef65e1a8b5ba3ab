import {
  financeAgentExample,
  GATEWAY_DEMO_AGENT_ID,
  gatewayDemoExample,
  toManifestDocument,
  type AgentBase,
  type CapabilityManifest,
  type GatewayDemoOptions,
  type ProtocolSettings,
} from '@cp/capabilities';
import type { Prisma, PrismaClient } from '../../../prisma/generated/client';
import { agentColumns, manifestColumns } from './registry-mapping';

export const SEED_ACTOR = 'system:seed';

/** A loaded machine (CI running suites side by side) can take longer than Prisma's 5 s default. */
const SEED_TRANSACTION = { maxWait: 15_000, timeout: 60_000 };

/** Writes a seeded agent at revision 1 with its manifests, and its revision and audit event, like any other change. */
async function writeSeededAgent(
  tx: Prisma.TransactionClient,
  seeded: { agentId: string; teamId: string; agent: AgentBase; manifests: CapabilityManifest[]; summary: string },
): Promise<void> {
  const { agentId, teamId, agent, manifests, summary } = seeded;
  await tx.agent.create({ data: { id: agentId, teamId, ...agentColumns(agent), revision: 1 } });
  await tx.capabilityManifest.createMany({ data: manifests.map((m) => ({ agentId, ...manifestColumns(m) })) });
  await tx.registryRevision.create({ data: { agentId, revision: 1, actor: SEED_ACTOR, summary } });
  await tx.auditEvent.create({
    data: {
      actor: SEED_ACTOR,
      action: 'registry.seed',
      targetType: 'agent',
      targetId: agentId,
      agentId,
      revision: 1,
      after: { agent: agentId, manifests: manifests.map((m) => toManifestDocument(m)) } as never,
    },
  });
}

/**
 * Seeds the design's worked example when the registry is empty: the finance agent with
 * public invoice lookup and partner-only reconcile-invoice, the partner tenant, the scope
 * recon.run. Writes revision 1 and an audit event, like any other change.
 */
export async function seedWhenEmpty(
  prisma: PrismaClient,
  options: { agentNodeUrl?: string; protocol?: Partial<ProtocolSettings> } = {},
): Promise<boolean> {
  if ((await prisma.agent.count()) > 0) return false;
  const example = financeAgentExample({ baseUrl: options.agentNodeUrl });
  example.agent.protocol = { ...example.agent.protocol, ...options.protocol };
  const agentId = 'finance-agent';
  const teamId = example.manifests[0].owner;
  await prisma.$transaction(async (tx) => {
    await tx.team.create({ data: { id: teamId, name: 'Finance agents team' } });
    await tx.tenant.createMany({
      data: [
        { id: example.tenants.partner, name: 'Acme (partner)' },
        { id: example.tenants.other, name: 'Globex' },
      ],
    });
    await tx.scope.createMany({
      data: [{ name: example.scopes.reconRun, description: 'Run invoice reconciliation against purchase orders.' }],
    });
    await writeSeededAgent(tx, {
      agentId,
      teamId,
      agent: example.agent,
      manifests: example.manifests,
      summary: 'seed: the worked example',
    });
    // The ERP tool reconcile-invoice calls through the node's tool gateway (token exchange).
    await tx.tool.create({ data: { agentId, name: 'erp', scopes: ['recon.run', 'invoices.read'], audience: 'tool:erp' } });
  }, SEED_TRANSACTION);
  return true;
}

/**
 * Seeds the gateway demo (docs/gateway.md) unless its agent exists: the agent `recon-gateway`
 * whose capabilities an upstream A2A agent serves, with the upstream's private host on its
 * upstreamAllow. Independent of the finance example, so a registry seeded before still gets it.
 * An existing `recon-gateway` is left as it is (edit it like any agent, or drop it to re-seed).
 */
export async function seedGatewayDemoWhenAbsent(prisma: PrismaClient, options: GatewayDemoOptions): Promise<boolean> {
  const agentId = GATEWAY_DEMO_AGENT_ID;
  if (await prisma.agent.findUnique({ where: { id: agentId }, select: { id: true } })) return false;
  const { agent, manifests } = gatewayDemoExample(options);
  const teamId = manifests[0].owner;
  await prisma.$transaction(async (tx) => {
    await tx.team.upsert({ where: { id: teamId }, create: { id: teamId, name: 'Finance agents team' }, update: {} });
    await tx.scope.upsert({
      where: { name: 'recon.run' },
      create: { name: 'recon.run', description: 'Run invoice reconciliation against purchase orders.' },
      update: {},
    });
    await writeSeededAgent(tx, { agentId, teamId, agent, manifests, summary: 'seed: the gateway demo' });
  }, SEED_TRANSACTION);
  return true;
}
