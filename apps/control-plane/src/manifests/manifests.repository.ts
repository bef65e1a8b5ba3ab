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
import type { UsageTotal } from '../usage/usage.repository';

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
export type ManifestListRow = Pick<ManifestRow, 'agentId' | 'capabilityId'> & Partial<ManifestRow> & { usage?: UsageTotal };

/** Timestamp columns: stored without a zone, meaning UTC; read as such whatever the process's zone. */
const TIMESTAMP_COLUMNS: ReadonlySet<ManifestColumn> = new Set(['sunsetAt', 'createdAt', 'updatedAt', 'deprecatedAt', 'removedAt']);
/** A column of a list's SELECT, under the name Prisma's rows use (its field name is its column name). */
const listColumn = (column: ManifestColumn) =>
  TIMESTAMP_COLUMNS.has(column) ? `m."${column}" AT TIME ZONE 'UTC' AS "${column}"` : `m."${column}"`;

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
   * One SQL statement whatever the filters: ordered by (agentId, capabilityId), `take` rows after
   * the cursor, with only the key columns and `columns` (a page of 100 lists seldom needs the JSON
   * columns, and parsing them was a good part of its cost), and with `usage` each row's usage
   * totals over all time, summed in the same statement (one index range scan per row of the page,
   * as UsageRepository.totals does). Written in SQL on Prisma's own pool rather than through the
   * client: the admin list's hot path, where Prisma's query handling and a second statement were
   * the largest costs the bare pg baseline does not pay (ADR 0340).
   */
  async list(
    scope: ManifestListScope,
    after: [string, string] | undefined,
    take: number,
    columns: ReadonlySet<ManifestColumn>,
    usage = false,
  ): Promise<ManifestListRow[]> {
    const values: unknown[] = [];
    const param = (value: unknown, cast: string) => `$${values.push(value)}::${cast}`;
    const where: string[] = [];
    if (scope.teams) {
      const teams = param(scope.teams, 'text[]');
      where.push(
        `(m."ownerTeamId" = ANY(${teams}) OR EXISTS (SELECT 1 FROM "Agent" a WHERE a.id = m."agentId" AND a."teamId" = ANY(${teams})))`,
      );
    }
    if (scope.agentId) where.push(`m."agentId" = ${param(scope.agentId, 'text')}`);
    if (scope.state) where.push(`m.state = ${param(scope.state, '"CapabilityState"')}`);
    if (scope.visibility) where.push(`m.visibility = ${param(scope.visibility, '"Visibility"')}`);
    if (scope.owner) where.push(`m."ownerTeamId" = ${param(scope.owner, 'text')}`);
    if (scope.tag) where.push(`m.skill #> '{tags}' @> jsonb_build_array(${param(scope.tag, 'text')})`);
    if (after) where.push(`(m."agentId", m."capabilityId") > (${param(after[0], 'text')}, ${param(after[1], 'text')})`);
    const selected = [...columns].map((column) => `, ${listColumn(column)}`).join('');
    const page = `SELECT m."agentId", m."capabilityId"${selected}
        FROM "CapabilityManifest" m
       ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY m."agentId", m."capabilityId"
       LIMIT ${param(take, 'int')}`;
    // The page first, then its usage: a LATERAL beside the filters could be summed for every
    // matching row before a sort, not only for the page's.
    const text = usage
      ? `SELECT p.*, u.calls AS "usageCalls", u."lastCallAt" AS "usageLastCallAt"
           FROM (${page}) p
          CROSS JOIN LATERAL (
                SELECT SUM(b.count)::float8 AS calls, (EXTRACT(EPOCH FROM MAX(b."lastCallAt")) * 1000)::float8 AS "lastCallAt"
                  FROM "UsageBucket" b
                 WHERE b."agentId" = p."agentId" AND b."capabilityId" = p."capabilityId") u
          ORDER BY p."agentId", p."capabilityId"`
      : page;
    const { rows } = await this.prisma.pool.query<ManifestListRow & { usageCalls?: number | null; usageLastCallAt?: number | null }>(
      text,
      values,
    );
    // No bucket: SUM over nothing is NULL, which is no calls. The last call comes as epoch ms (the
    // stored UTC instant; cheaper than parsing timestamp text, ~2 % of the list's CPU). In place: a page is 101 rows.
    if (usage)
      for (const row of rows) {
        const last = row.usageLastCallAt;
        row.usage = { calls: row.usageCalls ?? 0, lastCallAt: last === null || last === undefined ? null : new Date(last) };
      }
    return rows;
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
