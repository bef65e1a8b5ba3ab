import { Injectable } from '@nestjs/common';
import {
  buildPublicCard,
  canonicalJson,
  checkAgentCard,
  publicCardLeaksAdded,
  type AgentBase,
  type RegistrySnapshot,
} from '@cp/capabilities';
import type { AdminPrincipal } from '@cp/auth';
import {
  Prisma,
  RegistryError,
  RegistryErrorCode,
  RegistrySnapshotRepository,
  RegistryWriter,
  type AuditEntry,
  type RegistryTx,
} from '@cp/db';
import { AccessPolicy } from '../auth/access-policy';
import { InputValidationError, notFound, validateInput } from '../common/errors';
import { decodeCursor, pageSize, toPage, type Page, type PageInput } from '../common/graphql/pagination';
import { ApprovalGate, reasonSchema } from '../change-requests/approval-gate.service';
import { widenedAllowEntries, type GatedChange } from '../change-requests/change-kinds';
import { ChangeRequestError, ChangeRequestErrorCode } from '../change-requests/change-requests.errors';
import type { ChangeRequestRow, SettingsChange } from '../change-requests/change-requests.repository';
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

/** Input fields that address or guard the change rather than being part of the card base. */
const NOT_BASE = new Set(['id', 'teamId', 'expectedRevision', 'breakGlassReason']);

/** Input over the stored base: undefined keeps a field, null clears an optional one. */
function merge(base: Partial<AgentBase>, input: AgentCardInput): unknown {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || NOT_BASE.has(key)) continue;
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

const listsOf = (base: Partial<AgentBase>) => ({ webhookAllow: base.protocol?.webhookAllow, upstreamAllow: base.protocol?.upstreamAllow });

/** Top-level card-base fields (protocol by member) whose values differ: what an approver reads. */
function changedFields(before: AgentBase, after: AgentBase): string[] {
  const differs = (a: unknown, b: unknown) => canonicalJson(a ?? null) !== canonicalJson(b ?? null);
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])] as (keyof AgentBase)[];
  return keys
    .flatMap((key) => {
      if (key !== 'protocol') return differs(before[key], after[key]) ? [key] : [];
      const [was, now]: Record<string, unknown>[] = [{ ...before.protocol }, { ...after.protocol }];
      return [...new Set([...Object.keys(was), ...Object.keys(now)])].filter((m) => differs(was[m], now[m])).map((m) => `protocol.${m}`);
    })
    .sort();
}

/** What updateAgent did: applied (changeRequest null, or the break-glass record), or held for a second admin. */
export type AgentUpdate = AgentRecord & { changeRequest: ChangeRequestRow | null };

@Injectable()
export class AgentsService {
  constructor(
    private readonly agents: AgentsRepository,
    private readonly writer: RegistryWriter,
    private readonly access: AccessPolicy,
    private readonly snapshots: RegistrySnapshotRepository,
    private readonly gate: ApprovalGate,
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
    const candidate = merge({ extensions: [], protocol: DEFAULT_PROTOCOL }, input);
    if (!SLUG.test(input.id)) {
      // Every problem of the input in one answer, the id's first (before access, as the id's alone was).
      const idIssue = { path: '$.id', message: 'must be a slug like "finance-agent"' };
      throw new InputValidationError([idIssue, ...this.baseIssues(candidate)]);
    }
    this.access.assertCanWrite(principal, input.teamId, { type: 'team', id: input.teamId });
    if (!(await this.agents.teamExists(input.teamId))) throw notFound('team', input.teamId);
    const base = this.validBase(candidate);
    // A new agent has no settings a request could be held against (ADR 0325): its allow lists are
    // requested with updateAgent once it exists, like a single manifest mutation points at applyManifests.
    const gated = await this.gate.gatedAllowLists({}, listsOf(base));
    if (gated.length) throw approvalRequired(`create agent "${input.id}"`, gated);
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

  /**
   * Changes the card base. A change that widens an allow list the approval policy gates (ADR 0325)
   * applies nothing: the whole update is held as a change request against the current settings,
   * unless a platform admin breaks the glass with a reason. Narrowing applies at once.
   */
  async update(principal: AdminPrincipal, input: UpdateAgentInput): Promise<AgentUpdate> {
    const current = await this.getForWrite(principal, input.id);
    const reason =
      input.breakGlassReason === null || input.breakGlassReason === undefined
        ? null
        : validateInput(reasonSchema, input.breakGlassReason, '$.breakGlassReason');
    const base = this.validBase(merge(current.base, input));
    const gated = await this.gate.gatedAllowLists(listsOf(current.base), listsOf(base));
    if (gated.length === 0) {
      const widened = this.allowWidenings(principal, input.id, current.base, base);
      // The leak guard runs in the write's transaction, on the snapshot read there for the
      // publisher too (ADR 0365): no snapshot transaction of its own before the write.
      return { ...(await this.write(principal, input.id, input.expectedRevision, current.base, base, widened)), changeRequest: null };
    }
    // As for a manifest plan: a change that could never apply is refused now, not held.
    await this.assertNoLeak(input.id, base);
    if (input.expectedRevision !== current.revision) {
      throw new RegistryError(
        RegistryErrorCode.StaleRevision,
        `agent "${input.id}" is at revision ${current.revision}, not ${input.expectedRevision}: reload and retry`,
        { agentId: input.id, expectedRevision: input.expectedRevision, currentRevision: current.revision },
      );
    }
    const settings: SettingsChange = { before: current.base, after: base, fields: changedFields(current.base, base) };
    const submission = {
      agentId: input.id,
      baseRevision: current.revision,
      documents: [],
      allowUnserved: [],
      changes: gated,
      plan: { added: [], changed: [], deprecated: [], removed: [] },
      settings,
    };
    if (reason === null) return { ...current, changeRequest: await this.gate.submit(principal, submission) };
    const record = this.gate.breakGlassRecord(principal, submission, this.gate.breakGlassReason(principal, reason));
    const widened = this.allowWidenings(principal, input.id, current.base, base);
    const agent = await this.write(principal, input.id, input.expectedRevision, current.base, base, widened, record.write);
    return { ...agent, changeRequest: (await record.announce()) ?? null };
  }

  /**
   * Applies an approved settings change as `principal` (the approver), only while the agent's
   * settings are still the ones it was requested against; otherwise STALE_REVISION and nothing
   * written. Access, the field rules, the widening rule (platform admins only, ADR 0211) and the
   * leak guard are judged again for the approver. `markApplied` runs in the write's transaction.
   */
  async applyApproved(
    principal: AdminPrincipal,
    request: { id: string; agentId: string; author: string; settings: SettingsChange },
    markApplied: (tx: RegistryTx, revision: number) => Promise<AuditEntry[]>,
  ): Promise<number> {
    const current = await this.getForWrite(principal, request.agentId);
    const requested = request.settings.before as AgentBase;
    const base = this.validBase(request.settings.after);
    const widened = this.allowWidenings(principal, request.agentId, requested, base);
    await this.assertNoLeak(request.agentId, base);
    const { revision } = await this.writer.change(
      {
        agentId: request.agentId,
        actor: principal.subject,
        summary: `update agent ${request.agentId} (change request ${request.id} by ${request.author}, approved by ${principal.subject})`,
      },
      async (tx, revision) => {
        // The agent row is locked by now: the comparison and the write see the same settings.
        const now = await this.agents.findIn(tx, request.agentId);
        if (!now || canonicalJson(now.base) !== canonicalJson(requested)) {
          throw new RegistryError(
            RegistryErrorCode.StaleRevision,
            `the settings of agent "${request.agentId}" changed since change request ${request.id} was made`,
            { agentId: request.agentId, currentRevision: revision - 1 },
          );
        }
        await this.agents.update(tx, request.agentId, base);
        return {
          result: undefined,
          audit: [
            { action: 'agent.update', targetType: 'agent', targetId: request.agentId, before: current.base, after: base },
            ...widened,
            ...(await markApplied(tx, revision)),
          ],
        };
      },
    );
    return revision;
  }

  private async write(
    principal: AdminPrincipal,
    agentId: string,
    expectedRevision: number,
    before: AgentBase,
    base: AgentBase,
    widened: AuditEntry[],
    also?: (tx: RegistryTx, revision: number) => Promise<AuditEntry[]>,
  ): Promise<AgentRecord> {
    const { result } = await this.writer.change(
      {
        agentId,
        expectedRevision,
        actor: principal.subject,
        summary: `update agent ${agentId}${also ? ' (break-glass)' : ''}`,
        check: (snapshot) => refuseAddedLeaks({ ...snapshot, agent: before }, snapshot),
      },
      async (tx, revision) => ({
        result: await this.agents.update(tx, agentId, base),
        audit: [
          { action: 'agent.update', targetType: 'agent', targetId: agentId, before, after: base },
          ...widened,
          ...(also ? await also(tx, revision) : []),
        ],
      }),
    );
    return result;
  }

  private allowWidenings(principal: AdminPrincipal, agentId: string, previous: AgentBase, base: AgentBase): AuditEntry[] {
    return [
      ...this.allowWidening(principal, agentId, 'webhookAllow', previous.protocol?.webhookAllow ?? [], base),
      ...this.allowWidening(principal, agentId, 'upstreamAllow', previous.protocol?.upstreamAllow ?? [], base),
    ];
  }

  /**
   * Every entry added to `protocol.webhookAllow` lets anonymous callers' push URLs reach a private
   * address (ADR 0211), and every entry added to `protocol.upstreamAllow` lets a manifest's upstream
   * reach one (ADR 0230), so only a platform admin may add one; a team admin may keep, remove or
   * narrow entries. What counts as added is the approval policy's rule (change-kinds.ts). The
   * widening gets an audit event of its own, naming what was added.
   */
  private allowWidening(
    principal: AdminPrincipal,
    agentId: string,
    list: 'webhookAllow' | 'upstreamAllow',
    previous: readonly string[],
    base: AgentBase,
  ): AuditEntry[] {
    const next = base.protocol[list] ?? [];
    const added = widenedAllowEntries(previous, next);
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
    if (snapshot) refuseAddedLeaks(snapshot, { ...snapshot, agent: base });
  }

  /** The problems validBase would name (none when the base is valid). */
  private baseIssues(candidate: unknown): InputValidationError['validationErrors'] {
    try {
      this.validBase(candidate);
      return [];
    } catch (error) {
      if (error instanceof InputValidationError) return error.validationErrors;
      throw error;
    }
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

function approvalRequired(what: string, gated: readonly GatedChange[]): ChangeRequestError {
  return new ChangeRequestError(
    ChangeRequestErrorCode.ApprovalRequired,
    `${what} needs a second admin (${gated.map((c) => `${c.kind}: ${c.detail}`).join('; ')}): create the agent without these entries, then add them with updateAgent, which files a change request`,
    { changes: gated },
  );
}

/** Refused for the leaks `next` adds to the public card, not those `previous` already had (ADR 0335). */
function refuseAddedLeaks(previous: RegistrySnapshot, next: RegistrySnapshot): void {
  const leaks = publicCardLeaksAdded(previous, next);
  if (leaks.length)
    throw new AgentError(
      AgentErrorCode.PublicCardLeak,
      `the public card would show text of non-public skills (${leaks.map((l) => `${l.skillId}.${l.field}`).join(', ')})`,
      { leaks },
    );
}
