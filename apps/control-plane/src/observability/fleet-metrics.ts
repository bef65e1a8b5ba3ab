import { Inject, Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import type { Registry } from 'prom-client';
import { LIVE_NODE_WINDOW_MS } from '@cp/capabilities';
import { MetricsRegistryToken, serverGauge } from '@cp/common';
import { PrismaService } from '@cp/db';

/** A node silent for longer than this is forgotten by the gauge (it was decommissioned without a graceful stop). */
export const FORGET_NODE_AFTER_MS = 24 * 3_600_000;

type NodeState = 'live' | 'silent' | 'stopped';

/**
 * cp_fleet_nodes{agent,state}: the nodes the control plane knows, by what it last heard (ADR
 * 0143). live: seen within LIVE_NODE_WINDOW_MS (three heartbeats); stopped: said so at a graceful
 * shutdown; silent: neither, seen within the last day. Read from PostgreSQL at scrape time (one
 * grouped query); agent ids are registry rows, so the label set is bounded by the registry.
 */
@Injectable()
export class FleetMetrics implements OnModuleInit {
  constructor(
    private readonly prisma: PrismaService,
    @Optional() @Inject(MetricsRegistryToken) private readonly registry?: Registry,
  ) {}

  onModuleInit(): void {
    if (!this.registry) return;
    const prisma = this.prisma;
    serverGauge(this.registry, 'fleetNodes', async function () {
      const now = Date.now();
      try {
        const rows = await prisma.$queryRaw<{ agent: string; state: NodeState; nodes: bigint }[]>`
          SELECT n."agentId" AS agent,
                 CASE WHEN i."stoppedAt" IS NOT NULL THEN 'stopped'
                      WHEN n."lastSeenAt" >= ${new Date(now - LIVE_NODE_WINDOW_MS)} THEN 'live'
                      ELSE 'silent' END AS state,
                 count(*) AS nodes
            FROM "Node" n
            LEFT JOIN "NodeInventory" i ON i."agentId" = n."agentId" AND i."nodeId" = n.id
           WHERE n."lastSeenAt" >= ${new Date(now - FORGET_NODE_AFTER_MS)}
           GROUP BY 1, 2`;
        this.reset();
        for (const row of rows) this.labels(row.agent, row.state).set(Number(row.nodes));
      } catch {
        // PostgreSQL away: no stale figure rather than a wrong one.
        this.reset();
      }
    });
  }
}
