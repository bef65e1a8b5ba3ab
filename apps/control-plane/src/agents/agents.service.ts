import { Injectable } from '@nestjs/common';
import { addedWebhookAllow, buildPublicCard, checkAgentCard, findLeaks, type AgentBase } from '@cp/capabilities';
import type { AdminPrincipal } from '@cp/auth';
import { Prisma, RegistrySnapshotRepository, RegistryWriter, type AuditEntry } from '@cp/db';
import { AccessPolicy } from '../auth/access-policy';
import { InputValidationError, notFound, validateInput } from '../common/errors';
import { decodeCursor, pageSize, toPage, type Page, type PageInput } from '../common/graphql/pagination';
import { AgentError, AgentErrorCode } from './agents.errors';
import { AgentsRepository, type AgentRecord } from './agents.repository';
import { agentBaseSchema, SLUG } from './agent-base.schema';
import type { AgentCardInput, CreateAgentInput, UpdateAgentInput } from './dto/agent.input';

const DEFAULT_PROTOCOL = {
  streaming: false,
  pushNotifications: false,
  extendedAgentCard: true,
  versions: ['1.0'],
  webhookAllow: [] as string[],
};

/** Input over the stored base: undefined keeps a field, null clears an optional one. */
function merge(base: Partial<AgentBase>, input: AgentCardInput): unknown {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || key === 'id' || key === 'teamId' || key === 'expectedRevision') continue;
    if (key === 'protocol') out.protocol = { ...DEFAULT_PROTOCOL, ...base.protocol, ...stripNulls(value as object) };
    else if (key === 'extensions') out.extensions = (value as object[] | null)?.map(stripNulls) ?? [];
    else if (key === 'supportedInterfaces') out.supportedInterfaces = (value as object[] | null)?.map(stripNulls);
    else if (value === null) delete out[key];
    else out[key] = value;
  }
  return out;
}
const idUnavailable = (id: string) =>
  new AgentError(AgentErrorCode.IdUnavailable, `agent id "${id}" is not available: choose another id`, { id });

const stripNulls = (o: object) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

@Injectable()
export class AgentsService {
  constructor(
    private readonly agents: AgentsRepository,
    private readonly writer: RegistryWriter,
    private readonly access: AccessPolicy,
    private readonly snapshots: RegistrySnapshotRepository,
  ) {}

  /** The agent if the caller may read it; NOT_FOUND otherwise (missing and forbidden read alike). */
  async get(principal: AdminPrincipal, id: string): Promise<AgentRecord> {
    const agent = await this.agents.find(id);
    if (!agent) throw notFound('agent', id);
    this.access.assertCanRead(principal, agent.teamId, { type: 'agent', id });
    return agent;
  }

  async getForWrite(principal: AdminPrincipal, id: string): Promise<AgentRecord> {
    const agent = await this.get(principal, id);
    this.access.assertCanWrite(principal, agent.teamId, { type: 'agent', id });
    return agent;
  }

  async list(principal: AdminPrincipal, filter: { teamId?: string | null }, page: PageInput | undefined): Promise<Page<AgentRecord>> {
    const size = pageSize(page);
    const after = decodeCursor(page?.after)?.[0];
    const rows = await this.agents.list(
      { teams: this.access.readableTeams(principal), teamId: filter.teamId ?? undefined },
      after === undefined ? undefined : String(after),
      size + 1,
    );
    return toPage(rows, size, (a) => [a.id]);
  }

  async create(principal: AdminPrincipal, input: CreateAgentInput): Promise<AgentRecord> {
    if (!SLUG.test(input.id)) throw new InputValidationError([{ path: '$.id', message: 'must be a slug like "finance-agent"' }]);
    this.access.assertCanWrite(principal, input.teamId, { type: 'team', id: input.teamId });
    if (!(await this.agents.teamExists(input.teamId))) throw notFound('team', input.teamId);
    const base = this.validBase(merge({ extensions: [], protocol: DEFAULT_PROTOCOL }, input));
    const widened = [
      ...this.allowWidening(principal, input.id, 'webhookAllow', [], base),
      ...this.allowWidening(principal, input.id, 'upstreamAllow', [], base),
    ];
    // Agent ids are one namespace, so a taken id is refused, but with one answer whether the
    // holder is visible to the caller or not (agent(id) answers NOT_FOUND for the hidden one):
    // it names neither the holder nor its team, and a concurrent insert answers the same.
    if (await this.agents.find(input.id)) throw idUnavailable(input.id);
    try {
      await this.agents.insert(input.id, input.teamId, base);
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') throw idUnavailable(input.id);
      throw error;
    }
    try {
      await this.writer.change(
        { agentId: input.id, expectedRevision: 0, actor: principal.subject, summary: `create agent ${input.id}` },
        async () => ({
          result: undefined,
          audit: [
            { action: 'agent.create', targetType: 'agent', targetId: input.id, after: { teamId: input.teamId, ...base } },
            ...widened,
          ],
        }),
      );
    } catch (error) {
      // The row at revision 0 has no registry yet: take it back so a retry can succeed.
      await this.agents.delete(input.id);
      throw error;
    }
    return (await this.agents.find(input.id))!;
  }

  async update(principal: AdminPrincipal, input: UpdateAgentInput): Promise<AgentRecord> {
    const current = await this.getForWrite(principal, input.id);
    const base = this.validBase(merge(current.base, input));
    const widened = [
      ...this.allowWidening(principal, input.id, 'webhookAllow', current.base.protocol?.webhookAllow ?? [], base),
      ...this.allowWidening(principal, input.id, 'upstreamAllow', current.base.protocol?.upstreamAllow ?? [], base),
    ];
    await this.assertNoLeak(input.id, base);
    const { result } = await this.writer.change(
      { agentId: input.id, expectedRevision: input.expectedRevision, actor: principal.subject, summary: `update agent ${input.id}` },
      async (tx) => ({
        result: await this.agents.update(tx, input.id, base),
        audit: [{ action: 'agent.update', targetType: 'agent', targetId: input.id, before: current.base, after: base }, ...widened],
      }),
    );
    return result;
  }

  /**
   * Every entry added to `protocol.webhookAllow` lets anonymous callers' push URLs reach a private
   * address (ADR 0211), and every entry added to `protocol.upstreamAllow` lets a manifest's upstream
   * reach one (ADR 0230), so only a platform admin may add one; a team admin may keep or remove
   * entries. The widening gets an audit event of its own, naming what was added.
   */
  private allowWidening(
    principal: AdminPrincipal,
    agentId: string,
    list: 'webhookAllow' | 'upstreamAllow',
    previous: readonly string[],
    base: AgentBase,
  ): AuditEntry[] {
    const next = base.protocol[list] ?? [];
    const added = addedWebhookAllow(previous, next);
    if (added.length === 0) return [];
    this.access.assertPlatformAdmin(principal, `add entries to protocol.${list} (${added.map((e) => JSON.stringify(e)).join(', ')})`);
    return [
      {
        action: list === 'webhookAllow' ? 'agent.webhook-allow.widen' : 'agent.upstream-allow.widen',
        targetType: 'agent',
        targetId: agentId,
        before: { [list]: previous },
        after: { [list]: next, added },
      },
    ];
  }

  /** The agent's own card text is public text: it must not name its non-public skills, scopes or tenants. */
  private async assertNoLeak(agentId: string, base: AgentBase): Promise<void> {
    const snapshot = await this.snapshots.snapshot(agentId);
    if (!snapshot) return;
    const leaks = findLeaks(buildPublicCard({ ...snapshot, agent: base }), snapshot.manifests, { tenants: snapshot.previewTenants });
    if (leaks.length)
      throw new AgentError(
        AgentErrorCode.PublicCardLeak,
        `the public card would show text of non-public skills (${leaks.map((l) => `${l.skillId}.${l.field}`).join(', ')})`,
        { leaks },
      );
  }

  /** Field rules (zod), then the A2A card conformance of what the base would publish. */
  private validBase(candidate: unknown): AgentBase {
    const base = validateInput(agentBaseSchema, candidate) as AgentBase;
    const issues = checkAgentCard(
      buildPublicCard({ agentId: 'check', revision: 0, agent: base, manifests: [], previewTenants: [] }),
    ).filter((issue) => !issue.path.startsWith('$.skills'));
    if (issues.length) throw new InputValidationError(issues);
    return base;
  }
}
