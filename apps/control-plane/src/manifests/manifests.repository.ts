import { Injectable } from '@nestjs/common';
import type { CapabilityManifest, CapabilityState, RegistrySnapshot, Visibility } from '@cp/capabilities';
import {
  PrismaService,
  RegistrySnapshotRepository,
  manifestColumns,
  manifestFromRow,
  type Prisma,
  type PrismaModels,
  type RegistryTx,
} from '@cp/db';

export interface ManifestRecord {
  agentId: string;
  agentTeamId: string;
  manifest: CapabilityManifest;
  createdAt: Date;
  updatedAt: Date;
  deprecatedAt: Date | null;
  removedAt: Date | null;
}

/** A manifest row as stored: every column a list may ask for. */
export type ManifestRow = PrismaModels.CapabilityManifestModel;
export type ManifestColumn = Exclude<keyof ManifestRow, 'agentId' | 'capabilityId'>;
/**
 * A list row: the key columns and those the caller asked for (the access filter ran in SQL, so the
 * agent's team is not fetched: one statement per page). Reading a column not asked for is a bug
 * the types cannot see; `list`'s caller derives both from one table.
 */
export type ManifestListRow = Pick<ManifestRow, 'agentId' | 'capabilityId'> & Partial<ManifestRow>;

export interface ManifestListScope {
  /** Readable teams (agent team or owner team); undefined = all. */
  teams?: string[];
  agentId?: string;
  state?: CapabilityState;
  visibility?: Visibility;
  tag?: string;
  owner?: string;
}

const include = { agent: { select: { teamId: true } } } as const;
type Row = Prisma.CapabilityManifestGetPayload<{ include: typeof include }>;
const toRecord = (row: Row): ManifestRecord => ({
  agentId: row.agentId,
  agentTeamId: row.agent.teamId,
  manifest: manifestFromRow(row),
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  deprecatedAt: row.deprecatedAt,
  removedAt: row.removedAt,
});

@Injectable()
export class ManifestsRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly snapshots: RegistrySnapshotRepository,
  ) {}

  snapshot(agentId: string): Promise<RegistrySnapshot | null> {
    return this.snapshots.snapshot(agentId);
  }

  async find(agentId: string, capabilityId: string): Promise<ManifestRecord | null> {
    const row = await this.prisma.capabilityManifest.findUnique({ where: { agentId_capabilityId: { agentId, capabilityId } }, include });
    return row ? toRecord(row) : null;
  }

  /**
   * One SQL query whatever the filters: ordered by (agentId, capabilityId), `take` rows after the
   * cursor, with only the key columns and `columns` (a page of 100 lists seldom needs the JSON
   * columns, and parsing them was a good part of its cost).
   */
  async list(
    scope: ManifestListScope,
    after: [string, string] | undefined,
    take: number,
    columns: ReadonlySet<ManifestColumn>,
  ): Promise<ManifestListRow[]> {
    const where: Prisma.CapabilityManifestWhereInput = {
      AND: [
        scope.teams ? { OR: [{ agent: { teamId: { in: scope.teams } } }, { ownerTeamId: { in: scope.teams } }] } : {},
        scope.agentId ? { agentId: scope.agentId } : {},
        scope.state ? { state: scope.state } : {},
        scope.visibility ? { visibility: scope.visibility } : {},
        scope.owner ? { ownerTeamId: scope.owner } : {},
        scope.tag ? { skill: { path: ['tags'], array_contains: [scope.tag] } } : {},
        after ? { OR: [{ agentId: { gt: after[0] } }, { agentId: after[0], capabilityId: { gt: after[1] } }] } : {},
      ],
    };
    const select: Prisma.CapabilityManifestSelect = { agentId: true, capabilityId: true };
    for (const column of columns) select[column] = true;
    return this.prisma.capabilityManifest.findMany({
      where,
      select,
      orderBy: [{ agentId: 'asc' }, { capabilityId: 'asc' }],
      take,
    });
  }

  /** Which of these teams, scopes and tenants do not exist. */
  async missingReferences(refs: {
    teams: string[];
    scopes: string[];
    tenants: string[];
  }): Promise<{ teams: Set<string>; scopes: Set<string>; tenants: Set<string> }> {
    const [teams, scopes, tenants] = await Promise.all([
      this.prisma.team.findMany({ where: { id: { in: refs.teams } }, select: { id: true } }),
      this.prisma.scope.findMany({ where: { name: { in: refs.scopes } }, select: { name: true } }),
      this.prisma.tenant.findMany({ where: { id: { in: refs.tenants } }, select: { id: true } }),
    ]);
    const missing = (wanted: string[], found: string[]) => new Set(wanted.filter((w) => !found.includes(w)));
    return {
      teams: missing(
        refs.teams,
        teams.map((t) => t.id),
      ),
      scopes: missing(
        refs.scopes,
        scopes.map((s) => s.name),
      ),
      tenants: missing(
        refs.tenants,
        tenants.map((t) => t.id),
      ),
    };
  }

  /** Writes one manifest inside a registry change, stamping lifecycle times on state changes. */
  async save(
    tx: RegistryTx,
    agentId: string,
    manifest: CapabilityManifest,
    previous: CapabilityManifest | undefined,
    now: Date,
  ): Promise<void> {
    const stamps = {
      ...(manifest.state === 'deprecated' && previous?.state !== 'deprecated' ? { deprecatedAt: now } : {}),
      ...(manifest.state === 'removed' && previous?.state !== 'removed' ? { removedAt: now } : {}),
    };
    const data = { ...manifestColumns(manifest), ...stamps };
    if (previous) await tx.capabilityManifest.update({ where: { agentId_capabilityId: { agentId, capabilityId: manifest.id } }, data });
    else await tx.capabilityManifest.create({ data: { agentId, ...data } });
  }
}
