/**
 * The admin API operations cpctl uses (written against apps/control-plane/schema.graphql), and
 * their results mapped to the core's domain types.
 */
import { validateManifest, type AgentBase, type AgentCard, type CapabilityManifest, type CardChange, type Leak } from '@cp/capabilities';
import type { GeneratedCard } from '../card/card-from-files';
import { CpctlError, CpctlErrorCode } from '../cpctl.errors';
import type { GraphQLClient } from './graphql-client';
import { AGENT_QUERY, APPLY_MUTATION, MANIFESTS_QUERY, PUBLIC_CARD_QUERY, ROUTE_TEST_QUERY, SET_ALLOW_LIST_MUTATION } from './operations';

/** What the control plane plans for an apply (ids, except `changed` which names the fields). */
export interface ServerPlan {
  added: string[];
  changed: { id: string; fields: string[] }[];
  deprecated: string[];
  removed: string[];
  unchanged: string[];
  publicCardDiff: CardChange[];
  breaking: boolean;
  leaks: Leak[];
  /** Changes that remove, narrow or hide a capability, with the callers of the window they affect. */
  impact: PlanImpact[];
}

export interface PlanImpact {
  capabilityId: string;
  kind: 'removed' | 'narrowed-scopes' | 'narrowed-tenants' | 'hidden';
  detail: string;
  calls: number;
  callers: { tenantId: string; calls: number; lastCallAt: string }[];
}

export interface AppliedPlan {
  plan: ServerPlan;
  /** The agent's revision after the call (unchanged for a dry run). */
  revision: number;
  /** Changes the approval policy gates (ADR 0300). */
  approvalRequired: GatedChange[];
  /** The change request holding the plan (not applied), or the break-glass record (applied). */
  changeRequest: { id: string; status: string; baseRevision: number; breakGlass: boolean } | null;
  breakGlass: boolean;
}

export interface GatedChange {
  kind: string;
  capabilityId: string;
  detail: string;
}

export interface RemoteAgent {
  id: string;
  revision: number;
  base: AgentBase;
}

const PAGE = 100;

/** GraphQL nulls → absent optional fields, the way the core (and the card) represent them. */
function dropNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.map(dropNulls) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => [k, dropNulls(v)]),
  ) as T;
}

export async function fetchAgent(client: GraphQLClient, agentId: string): Promise<RemoteAgent> {
  const data = await client.request<{ agent: (Record<string, unknown> & { id: string; revision: number }) | null }>(AGENT_QUERY, {
    id: agentId,
  });
  if (!data.agent) throw new CpctlError(CpctlErrorCode.NotFound, `agent "${agentId}" not found at ${client.url}`);
  const { id, revision, ...rest } = data.agent;
  // JSON fields (security*, extension params) are kept as sent: their nulls are data.
  const base = dropNulls({ ...rest, securitySchemes: undefined, securityRequirements: undefined }) as unknown as AgentBase;
  if (rest.securitySchemes != null) base.securitySchemes = rest.securitySchemes as Record<string, unknown>;
  if (rest.securityRequirements != null) base.securityRequirements = rest.securityRequirements as unknown[];
  return { id, revision, base };
}

export async function fetchManifests(client: GraphQLClient, agentId: string): Promise<CapabilityManifest[]> {
  const out: CapabilityManifest[] = [];
  let after: string | null = null;
  do {
    type Page = { manifests: { nodes: { document: unknown }[]; pageInfo: { endCursor: string | null; hasNextPage: boolean } } };
    const data: Page = await client.request<Page>(MANIFESTS_QUERY, { agentId, first: PAGE, after });
    for (const node of data.manifests.nodes) {
      const r = validateManifest(node.document);
      if (!r.ok)
        throw new CpctlError(
          CpctlErrorCode.ServerError,
          `the control plane returned a manifest cpctl cannot read: ${r.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
        );
      out.push(r.manifest);
    }
    after = data.manifests.pageInfo.hasNextPage ? data.manifests.pageInfo.endCursor : null;
  } while (after);
  return out;
}

export async function fetchPublicCard(client: GraphQLClient, agentId: string): Promise<AgentCard> {
  const data = await client.request<{ publicCard: { card: AgentCard } | null }>(PUBLIC_CARD_QUERY, { agentId });
  if (!data.publicCard) throw new CpctlError(CpctlErrorCode.NotFound, `agent "${agentId}" not found at ${client.url}`);
  return data.publicCard.card;
}

/** The published public card and the manifests behind it (the leak check needs both). */
export async function fetchGeneratedCard(client: GraphQLClient, agentId: string): Promise<GeneratedCard> {
  const [card, manifests] = await Promise.all([fetchPublicCard(client, agentId), fetchManifests(client, agentId)]);
  return { card, manifests };
}

export async function applyManifests(
  client: GraphQLClient,
  agentId: string,
  documents: unknown[],
  options: { dryRun: boolean; expectedRevision?: number; allowUnserved?: string[]; impactDays?: number; breakGlassReason?: string },
): Promise<AppliedPlan> {
  const input = {
    agentId,
    manifests: documents,
    dryRun: options.dryRun,
    expectedRevision: options.expectedRevision ?? null,
    ...(options.impactDays !== undefined ? { impactDays: options.impactDays } : {}),
    ...(options.allowUnserved?.length ? { allowUnserved: options.allowUnserved } : {}),
    ...(options.breakGlassReason !== undefined ? { breakGlassReason: options.breakGlassReason } : {}),
  };
  // The files passed the same validator locally: what the server still refuses is the lifecycle.
  const data = await client.request<{ applyManifests: RawPlan }>(APPLY_MUTATION, { input }, CpctlErrorCode.PlanRefused);
  return toAppliedPlan(data.applyManifests);
}

/** The mutation's answer: the plan plus the revision it was computed at. */
type RawPlan = ServerPlan & Omit<AppliedPlan, 'plan'>;

function toAppliedPlan(raw: RawPlan): AppliedPlan {
  const { revision, added, changed, deprecated, removed, unchanged, breaking } = raw;
  return {
    revision,
    approvalRequired: raw.approvalRequired ?? [],
    changeRequest: raw.changeRequest ?? null,
    breakGlass: raw.breakGlass ?? false,
    plan: {
      added,
      changed,
      deprecated,
      removed,
      unchanged,
      publicCardDiff: raw.publicCardDiff.map((c) => dropNulls(c)),
      breaking,
      // Lifecycle refusals arrive as BAD_USER_INPUT (see request's badInput), never inside a plan.
      leaks: raw.leaks,
      impact: raw.impact ?? [],
    },
  };
}

export type AllowListName = 'webhookAllow' | 'upstreamAllow';

/** What setting an allow list did: applied, or held by a change request (ADR 0325). */
export interface AllowListUpdate {
  revision: number;
  lists: Record<AllowListName, string[]>;
  changeRequest: { id: string; status: string; baseRevision: number; breakGlass: boolean; changes: GatedChange[] } | null;
}

/** Replaces one allow list of the agent at `expectedRevision` (updateAgent); a refused entry is a usage error. */
export async function setAllowList(
  client: GraphQLClient,
  agentId: string,
  options: { list: AllowListName; entries: string[]; expectedRevision: number; breakGlassReason?: string },
): Promise<AllowListUpdate> {
  const input = {
    id: agentId,
    expectedRevision: options.expectedRevision,
    protocol: { [options.list]: options.entries },
    ...(options.breakGlassReason !== undefined ? { breakGlassReason: options.breakGlassReason } : {}),
  };
  type Raw = {
    updateAgent: { revision: number; protocol: Record<AllowListName, string[]>; changeRequest: AllowListUpdate['changeRequest'] };
  };
  const data = await client.request<Raw>(SET_ALLOW_LIST_MUTATION, { input }, CpctlErrorCode.Usage);
  return { revision: data.updateAgent.revision, lists: data.updateAgent.protocol, changeRequest: data.updateAgent.changeRequest };
}

export interface RouteTestSummary {
  total: number;
  correct: number;
  accuracy: number;
  minAccuracy: number;
  wrongRoutes: number;
  passed: boolean;
  changes: { index: number; text: string; expect: string; before: string; after: string }[];
}

/** The control plane's routeTest over proposed manifests: the labelled messages whose route changes. */
export async function routeTest(client: GraphQLClient, agentId: string, documents: unknown[], tests: unknown): Promise<RouteTestSummary> {
  const data = await client.request<{ routeTest: RouteTestSummary }>(
    ROUTE_TEST_QUERY,
    { input: { agentId, manifests: documents, tests } },
    CpctlErrorCode.InvalidFiles,
  );
  return data.routeTest;
}
