/**
 * Set-based database factories over `pg` (plain SQL, so a suite or benchmark can write 100,000
 * manifests in seconds): agents, lifecycle manifests, nodes and their usage coverage, usage, and
 * the rows the admin API never writes directly (usage batches, inventories, notices). The same
 * family as given-db.ts (which writes full manifests through Prisma) and re-exported from it: one
 * import for every arrangement a suite makes (issue 29). Arrange, not act: these bypass the API.
 */
import type { Client, Pool } from 'pg';

type Db = Pick<Client | Pool, 'query'>;

export const DAY_MS = 86_400_000;

export async function createAgent(db: Db, agentId: string, teamId = 'retirement-team'): Promise<void> {
  await createAgents(db, [agentId], teamId);
}

/** Agents in one team (created when missing), in one statement: benchmarks seed a thousand this way. Existing ids are kept. */
export async function createAgents(db: Db, agentIds: readonly string[], teamId = 'retirement-team'): Promise<void> {
  await db.query(`INSERT INTO "Team" (id, name) VALUES ($1, $1) ON CONFLICT DO NOTHING`, [teamId]);
  await db.query(
    `INSERT INTO "Agent" (id, "teamId", name, description, version, "supportedInterfaces", "defaultInputModes", "defaultOutputModes", revision, "updatedAt")
     SELECT a.id, $2, a.id, 'test agent', '1.0.0', '[{"url":"http://127.0.0.1/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]', '{text/plain}', '{application/json}', 1, now()
       FROM unnest($1::text[]) AS a(id)
     ON CONFLICT DO NOTHING`,
    [agentIds, teamId],
  );
}

export interface ManifestFixture {
  agentId: string;
  capabilityId: string;
  state: 'preview' | 'ga' | 'deprecated' | 'removed';
  deprecatedAt?: Date | null;
  removedAt?: Date | null;
  teamId?: string;
  /** Defaults: public, a one-line skill named after the id, handler `handler.<id>`, "no replacement" once deprecated. */
  visibility?: 'public' | 'extended' | 'internal';
  skill?: Record<string, unknown>;
  handler?: string;
  deprecationReason?: string;
}

export async function createManifests(db: Db, manifests: ManifestFixture[]): Promise<void> {
  if (manifests.length === 0) return;
  const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;
  const lifecycle = (m: ManifestFixture) => m.state === 'deprecated' || m.state === 'removed';
  await db.query(
    `INSERT INTO "CapabilityManifest" ("agentId", "capabilityId", state, visibility, skill, "requiresScopes", "tenantsAll", tenants, handler, "ownerTeamId",
                                       "replacedBy", "deprecationReason", "deprecatedAt", "removedAt", "updatedAt")
     SELECT m.agent, m.cap, m.state::"CapabilityState", m.visibility::"Visibility",
            COALESCE(m.skill::jsonb, jsonb_build_object('name', m.cap, 'description', 'test capability', 'tags', '[]'::jsonb)),
            '{}', true, '{}', COALESCE(m.handler, 'handler.' || m.cap), m.team,
            NULL, COALESCE(m.reason, CASE WHEN m.state IN ('deprecated', 'removed') THEN 'no replacement' END), m.deprecated, m.removed, now()
       FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamp[], $5::timestamp[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
         AS m(agent, cap, state, deprecated, removed, team, visibility, skill, handler, reason)`,
    [
      manifests.map((m) => m.agentId),
      manifests.map((m) => m.capabilityId),
      manifests.map((m) => m.state),
      manifests.map((m) => iso(m.deprecatedAt) ?? (lifecycle(m) ? new Date().toISOString() : null)),
      manifests.map((m) => iso(m.removedAt) ?? (m.state === 'removed' ? new Date().toISOString() : null)),
      manifests.map((m) => m.teamId ?? 'retirement-team'),
      manifests.map((m) => m.visibility ?? 'public'),
      manifests.map((m) => (m.skill ? JSON.stringify(m.skill) : null)),
      manifests.map((m) => m.handler ?? null),
      manifests.map((m) => m.deprecationReason ?? null),
    ],
  );
}

/**
 * A grid of manifests generated in the database (100,000 rows in a few seconds; building them as
 * fixture arrays is about three times slower): `perAgent` capabilities for each agent, ids
 * `cap-` + the number padded to `idWidth`; the first `deprecated` of each agent deprecated at
 * `deprecatedAt` ("superseded"), the rest ga. `{i}` in the skill and handler templates is the number.
 */
export async function createManifestGrid(
  db: Db,
  grid: {
    agentIds: readonly string[];
    perAgent: number;
    idWidth: number;
    skill: Record<string, unknown>;
    handler: string;
    deprecated?: number;
    deprecatedAt?: Date;
    teamId?: string;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO "CapabilityManifest" ("agentId", "capabilityId", state, visibility, skill, "requiresScopes", "tenantsAll", tenants, handler, "ownerTeamId",
                                       "deprecationReason", "deprecatedAt", "updatedAt")
     SELECT a.id, 'cap-' || lpad(i::text, greatest($3::int, length(i::text)), '0'), (CASE WHEN i <= $4 THEN 'deprecated' ELSE 'ga' END)::"CapabilityState", 'public',
            replace($5, '{i}', i::text)::jsonb, '{}', true, '{}', replace($6, '{i}', i::text), $7,
            CASE WHEN i <= $4 THEN 'superseded' END, CASE WHEN i <= $4 THEN $8::timestamp END, now()
       FROM unnest($1::text[]) AS a(id), generate_series(1, $2::int) AS i`,
    [
      grid.agentIds,
      grid.perAgent,
      grid.idWidth,
      grid.deprecated ?? 0,
      JSON.stringify(grid.skill),
      grid.handler,
      grid.teamId ?? 'retirement-team',
      (grid.deprecatedAt ?? new Date()).toISOString(),
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

/** Many nodes (and the coverage of those that have one) in two statements. */
export async function createNodes(db: Db, nodes: readonly NodeFixture[]): Promise<void> {
  if (nodes.length === 0) return;
  await db.query(
    `INSERT INTO "Node" (id, "agentId", "registeredAt", "lastSeenAt") SELECT * FROM unnest($1::text[], $2::text[], $3::timestamp[], $4::timestamp[])`,
    [
      nodes.map((n) => n.id),
      nodes.map((n) => n.agentId),
      nodes.map((n) => n.registeredAt.toISOString()),
      nodes.map((n) => (n.lastSeenAt ?? n.registeredAt).toISOString()),
    ],
  );
  const covered = nodes.filter((n) => n.coverage);
  if (covered.length === 0) return;
  await db.query(
    `INSERT INTO "NodeUsageCoverage" ("nodeId", "agentId", "coveredFrom", "coveredUntil", closed, "updatedAt")
     SELECT c.*, now() FROM unnest($1::text[], $2::text[], $3::timestamp[], $4::timestamp[], $5::boolean[]) AS c`,
    [
      covered.map((n) => n.id),
      covered.map((n) => n.agentId),
      covered.map((n) => n.coverage!.from.toISOString()),
      covered.map((n) => n.coverage!.until.toISOString()),
      covered.map((n) => n.coverage!.closed ?? false),
    ],
  );
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

/** Tenants by id (name defaults to the id); existing ids are kept. */
export async function createTenants(db: Db, tenants: { id: string; name?: string }[]): Promise<void> {
  await db.query(
    `INSERT INTO "Tenant" (id, name) SELECT t.id, t.name FROM unnest($1::text[], $2::text[]) AS t(id, name) ON CONFLICT (id) DO NOTHING`,
    [tenants.map((t) => t.id), tenants.map((t) => t.name ?? t.id)],
  );
}

/** A usage batch the node already sent (what ingestion deduplicates on and retention prunes), one minute long. */
export async function createUsageBatch(
  db: Db,
  batch: { id: string; nodeId: string; agentId: string; windowEnd: Date | string },
): Promise<void> {
  const end = typeof batch.windowEnd === 'string' ? batch.windowEnd : batch.windowEnd.toISOString();
  await db.query(
    `INSERT INTO "UsageBatch" (id, "nodeId", "agentId", "windowStart", "windowEnd", entries, calls) VALUES ($1, $2, $3, $4::timestamp - interval '1 minute', $4, 0, 0)`,
    [batch.id, batch.nodeId, batch.agentId, end],
  );
}

/** A node's handler inventory as last reported (`stoppedAt`: the node said it stopped). */
export async function createInventory(
  db: Db,
  inventory: { agentId: string; nodeId: string; reportedAt: Date; stoppedAt?: Date | null; handlers?: unknown[] },
): Promise<void> {
  await db.query(`INSERT INTO "NodeInventory" ("agentId", "nodeId", handlers, "reportedAt", "stoppedAt") VALUES ($1, $2, $3, $4, $5)`, [
    inventory.agentId,
    inventory.nodeId,
    JSON.stringify(inventory.handlers ?? []),
    inventory.reportedAt,
    inventory.stoppedAt ?? null,
  ]);
}

/** A pending deprecation notice for one tenant (its id is also its event key). */
export async function createNotice(
  db: Db,
  notice: { id: string; tenantId: string; agentId: string; capabilityId: string; event: string; payload: unknown },
): Promise<void> {
  await db.query(
    `INSERT INTO "DeprecationNotice" (id, "tenantId", "agentId", "capabilityId", event, "eventKey", payload) VALUES ($1, $2, $3, $4, $5, $1, $6)`,
    [notice.id, notice.tenantId, notice.agentId, notice.capabilityId, notice.event, JSON.stringify(notice.payload)],
  );
}

export interface UsageFixture {
  agentId: string;
  capabilityId: string;
  nodeId: string;
  tenantId?: string;
  lastCallAt: Date;
  count?: number | bigint;
}

/** Usage buckets (one per row's day); a bucket that exists already takes the row's count. */
export async function addUsage(db: Db, usage: UsageFixture[]): Promise<void> {
  if (usage.length === 0) return;
  await db.query(
    `INSERT INTO "UsageBucket" ("agentId", "capabilityId", "tenantId", "nodeId", day, count, "lastCallAt")
     SELECT u.agent, u.cap, u.tenant, u.node, u.last::date, u.count, u.last
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamp[], $6::bigint[]) AS u(agent, cap, tenant, node, last, count)
     ON CONFLICT ("agentId", "capabilityId", "tenantId", "nodeId", day) DO UPDATE SET count = EXCLUDED.count`,
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
