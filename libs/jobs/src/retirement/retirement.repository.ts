import { Injectable } from '@nestjs/common';
import { PrismaService, type RegistryTx } from '@cp/db';
import type { NodeUsageState, RetirementCandidate } from '@cp/capabilities';
import type { AgentRetirementInputs } from './retirement.types';

interface CandidateRow {
  agentId: string;
  capabilityId: string;
  deprecatedAt: Date;
  replacedBy: string | null;
  sunsetAt: Date | null;
  calls: number;
  lastCall: Date | null;
}

interface NodeRow {
  id: string;
  agentId: string;
  registeredAt: Date;
  lastSeenAt: Date;
  coveredFrom: Date | null;
  coveredUntil: Date | null;
  closed: boolean | null;
  used: boolean;
}

/**
 * The retirement job's reads and its one write, all set-based: one query loads every deprecated
 * candidate with its calls inside the window, one loads every relevant node's coverage, and one
 * UPDATE per agent retires many capabilities at once. No query per manifest.
 */
@Injectable()
export class RetirementRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Inputs of every agent that has deprecated capabilities (or only `agentId`'s), by agent id. */
  async loadInputs(since: Date, agentId: string | null = null): Promise<AgentRetirementInputs[]> {
    const sinceDay = since.toISOString().slice(0, 10);
    const candidates = await this.prisma.$queryRaw<CandidateRow[]>`
      WITH candidates AS (
        SELECT m."agentId", m."capabilityId", m."deprecatedAt", m."replacedBy", m."sunsetAt"
          FROM "CapabilityManifest" m
         WHERE m.state = 'deprecated' AND (${agentId}::text IS NULL OR m."agentId" = ${agentId}::text)
      ), usage AS (
        SELECT b."agentId", b."capabilityId", SUM(b.count)::float8 AS calls, MAX(b."lastCallAt") AS "lastCall"
          FROM "UsageBucket" b
          JOIN candidates c ON c."agentId" = b."agentId" AND c."capabilityId" = b."capabilityId"
         -- a bucket is a day; its lastCallAt tells whether any of its calls fell inside the window
         WHERE b.day >= ${sinceDay}::date AND b."lastCallAt" >= ${since}::timestamp AND b.count > 0
         GROUP BY b."agentId", b."capabilityId"
      )
      SELECT c."agentId", c."capabilityId", c."deprecatedAt", c."replacedBy", c."sunsetAt",
             COALESCE(u.calls, 0)::float8 AS calls, u."lastCall"
        FROM candidates c
        LEFT JOIN usage u ON u."agentId" = c."agentId" AND u."capabilityId" = c."capabilityId"
       ORDER BY c."agentId", c."capabilityId"`;
    const byAgent = new Map<string, AgentRetirementInputs>();
    for (const row of candidates) {
      let inputs = byAgent.get(row.agentId);
      if (!inputs) byAgent.set(row.agentId, (inputs = { agentId: row.agentId, candidates: [], nodes: [] }));
      inputs.candidates.push(toCandidate(row));
    }
    if (agentId !== null && !byAgent.has(agentId)) byAgent.set(agentId, { agentId, candidates: [], nodes: [] });
    const agents = [...byAgent.keys()];
    if (agents.length === 0) return [];
    const nodes = await this.prisma.$queryRaw<NodeRow[]>`
      SELECT n.id, n."agentId", n."registeredAt", n."lastSeenAt",
             c."coveredFrom", c."coveredUntil", c.closed,
             EXISTS (SELECT 1 FROM "UsageBucket" b
                      WHERE b."agentId" = n."agentId" AND b."nodeId" = n.id AND b.day >= ${sinceDay}::date) AS used
        FROM "Node" n
        -- nodes are keyed per agent (ADR 0070): never join on the node id alone
        LEFT JOIN "NodeUsageCoverage" c ON c."agentId" = n."agentId" AND c."nodeId" = n.id
       WHERE n."agentId" = ANY(${agents}::text[])
       ORDER BY n."agentId", n.id`;
    for (const row of nodes) byAgent.get(row.agentId)?.nodes.push(toNode(row));
    return [...byAgent.values()];
  }

  async agentExists(agentId: string): Promise<boolean> {
    return (await this.prisma.agent.count({ where: { id: agentId } })) === 1;
  }

  /** The team owning the agent (for access checks), or null when there is no such agent. */
  async agentTeam(agentId: string): Promise<string | null> {
    return (await this.prisma.agent.findUnique({ where: { id: agentId }, select: { teamId: true } }))?.teamId ?? null;
  }

  /**
   * Retires the given capabilities of one agent in ONE statement, inside the registry change's
   * transaction. `state = 'deprecated'` is the compare-and-set that makes it exactly once: a
   * capability another run (or a person) already removed is not returned, so it gets no second
   * audit event.
   */
  async retire(tx: RegistryTx, agentId: string, capabilityIds: string[], at: Date) {
    return tx.$queryRaw<{ capabilityId: string; deprecatedAt: Date; replacedBy: string | null; deprecationReason: string | null }[]>`
      UPDATE "CapabilityManifest"
         SET state = 'removed', "removedAt" = ${at}::timestamp, "updatedAt" = ${at}::timestamp
       WHERE "agentId" = ${agentId} AND "capabilityId" = ANY(${capabilityIds}::text[]) AND state = 'deprecated'
      RETURNING "capabilityId", "deprecatedAt", "replacedBy", "deprecationReason"`;
  }
}

function toCandidate(row: CandidateRow): RetirementCandidate {
  return {
    capabilityId: row.capabilityId,
    deprecatedAt: row.deprecatedAt,
    replacedBy: row.replacedBy,
    sunsetAt: row.sunsetAt,
    callsInWindow: Number(row.calls),
    lastCallInWindow: row.lastCall,
  };
}

function toNode(row: NodeRow): NodeUsageState {
  return {
    nodeId: row.id,
    registeredAt: row.registeredAt,
    lastSeenAt: row.lastSeenAt,
    coverage:
      row.coveredFrom && row.coveredUntil
        ? { coveredFrom: row.coveredFrom, coveredUntil: row.coveredUntil, closed: row.closed === true }
        : null,
    usedInWindow: row.used,
  };
}
