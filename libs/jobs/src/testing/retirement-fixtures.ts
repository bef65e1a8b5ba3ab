/**
 * Test and benchmark data for usage and retirement, written with plain SQL over `pg` (set-based,
 * so the benchmark can create 100,000 manifests in seconds). Not used by product code.
 */
import type { Client, Pool } from 'pg';

type Db = Pick<Client | Pool, 'query'>;

export const DAY_MS = 86_400_000;

export async function createAgent(db: Db, agentId: string, teamId = 'retirement-team'): Promise<void> {
  await db.query(`INSERT INTO "Team" (id, name) VALUES ($1, $1) ON CONFLICT DO NOTHING`, [teamId]);
  await db.query(
    `INSERT INTO "Agent" (id, "teamId", name, description, version, "supportedInterfaces", "defaultInputModes", "defaultOutputModes", revision, "updatedAt")
     VALUES ($1, $2, $1, 'test agent', '1.0.0', '[{"url":"http://127.0.0.1/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]', '{text/plain}', '{application/json}', 1, now())
     ON CONFLICT DO NOTHING`,
    [agentId, teamId],
  );
}

export interface ManifestFixture {
  agentId: string;
  capabilityId: string;
  state: 'preview' | 'ga' | 'deprecated' | 'removed';
  deprecatedAt?: Date | null;
  removedAt?: Date | null;
  teamId?: string;
}

export async function createManifests(db: Db, manifests: ManifestFixture[]): Promise<void> {
  if (manifests.length === 0) return;
  await db.query(
    `INSERT INTO "CapabilityManifest" ("agentId", "capabilityId", state, visibility, skill, "requiresScopes", "tenantsAll", tenants, handler, "ownerTeamId",
                                       "replacedBy", "deprecationReason", "deprecatedAt", "removedAt", "updatedAt")
     SELECT m.agent, m.cap, m.state::"CapabilityState", 'public', jsonb_build_object('name', m.cap, 'description', 'test capability', 'tags', '[]'::jsonb),
            '{}', true, '{}', 'handler.' || m.cap, m.team,
            NULL, CASE WHEN m.state IN ('deprecated', 'removed') THEN 'no replacement' END, m.deprecated, m.removed, now()
       FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamp[], $5::timestamp[], $6::text[]) AS m(agent, cap, state, deprecated, removed, team)`,
    [
      manifests.map((m) => m.agentId),
      manifests.map((m) => m.capabilityId),
      manifests.map((m) => m.state),
      manifests.map(
        (m) => m.deprecatedAt?.toISOString() ?? (m.state === 'deprecated' || m.state === 'removed' ? new Date().toISOString() : null),
      ),
      manifests.map((m) => m.removedAt?.toISOString() ?? (m.state === 'removed' ? new Date().toISOString() : null)),
      manifests.map((m) => m.teamId ?? 'retirement-team'),
    ],
  );
}

export interface NodeFixture {
  id: string;
  agentId: string;
  registeredAt: Date;
  lastSeenAt?: Date;
  /** Reported coverage span; omitted = the node never reported usage. */
  coverage?: { from: Date; until: Date; closed?: boolean };
}

export async function createNode(db: Db, node: NodeFixture): Promise<void> {
  await db.query(`INSERT INTO "Node" (id, "agentId", "registeredAt", "lastSeenAt") VALUES ($1, $2, $3, $4)`, [
    node.id,
    node.agentId,
    node.registeredAt.toISOString(),
    (node.lastSeenAt ?? node.registeredAt).toISOString(),
  ]);
  if (node.coverage) await setCoverage(db, node.id, node.agentId, node.coverage);
}

export async function setCoverage(
  db: Db,
  nodeId: string,
  agentId: string,
  coverage: { from: Date; until: Date; closed?: boolean },
): Promise<void> {
  await db.query(
    `INSERT INTO "NodeUsageCoverage" ("nodeId", "agentId", "coveredFrom", "coveredUntil", closed, "updatedAt") VALUES ($1, $2, $3, $4, $5, now())
     ON CONFLICT ("agentId", "nodeId") DO UPDATE SET "coveredFrom" = EXCLUDED."coveredFrom", "coveredUntil" = EXCLUDED."coveredUntil", closed = EXCLUDED.closed`,
    [nodeId, agentId, coverage.from.toISOString(), coverage.until.toISOString(), coverage.closed ?? false],
  );
}

export interface UsageFixture {
  agentId: string;
  capabilityId: string;
  nodeId: string;
  tenantId?: string;
  lastCallAt: Date;
  count?: number;
}

export async function addUsage(db: Db, usage: UsageFixture[]): Promise<void> {
  if (usage.length === 0) return;
  await db.query(
    `INSERT INTO "UsageBucket" ("agentId", "capabilityId", "tenantId", "nodeId", day, count, "lastCallAt")
     SELECT u.agent, u.cap, u.tenant, u.node, u.last::date, u.count, u.last
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamp[], $6::bigint[]) AS u(agent, cap, tenant, node, last, count)`,
    [
      usage.map((u) => u.agentId),
      usage.map((u) => u.capabilityId),
      usage.map((u) => u.tenantId ?? 'acme-partner'),
      usage.map((u) => u.nodeId),
      usage.map((u) => u.lastCallAt.toISOString()),
      usage.map((u) => String(u.count ?? 1)),
    ],
  );
}
