/**
 * "Advertised means servable": the handler inventory nodes report, and the rules that keep a
 * capability out of every card until the agent's live nodes can run its handler, and limits
 * inside what the handler declared. Pure: the control plane decides which nodes are live.
 */
import { z } from 'zod';
import { HANDLER, HANDLER_MAX, MEDIA_TYPE } from './formats';
import type { CapabilityManifest, CostClass, ManifestLimits, ValidationIssue } from './types';
import { COST_CLASSES } from './types';
import { upstreamCardUrl, upstreamSkillId } from './upstream';
import { upstreamProblem, type UpstreamCardReport } from './upstream-servability';

/** The types a handler may declare for a limit key (manifest limits are numbers, see manifest-schema). */
export const LIMIT_TYPES = ['number', 'integer'] as const;
export type LimitType = (typeof LIMIT_TYPES)[number];

/**
 * Limits every handler understands, because the node-sdk enforces them around the handler:
 * the handler never has to declare them.
 */
export const GENERIC_LIMITS = {
  cost_class: 'cost_class',
  timeout_s: 'number',
  max_input_bytes: 'integer',
  max_input_parts: 'integer',
  max_concurrent_tasks: 'integer',
} as const;
export type GenericLimitKey = keyof typeof GENERIC_LIMITS;

/** The generic limits as a handler reads them, typed from GENERIC_LIMITS (the one list of their names). */
export type GenericLimits = {
  [K in GenericLimitKey]?: (typeof GENERIC_LIMITS)[K] extends 'cost_class' ? CostClass : number;
};

/** What a node says about one handler registered in it. */
export interface HandlerDeclaration {
  id: string;
  /** Handler-specific limit keys and their types (generic ones are implied). */
  limits: Record<string, LimitType>;
  /** Media types the handler can produce. */
  outputModes: string[];
}

/** The wire shape of an inventory as a node sends it (bounded: a node's body is untrusted input). */
export const MAX_INVENTORY_HANDLERS = 500;
export const handlerInventorySchema = z
  .array(
    z.strictObject({
      id: z.string().max(HANDLER_MAX).regex(HANDLER, 'must be dotted lowercase identifiers, e.g. recon.v3.reconcile'),
      limits: z
        .record(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be a snake_case limit key'), z.enum(LIMIT_TYPES))
        .refine((l) => Object.keys(l).length <= 100, 'must declare at most 100 limit keys'),
      outputModes: z.array(z.string().max(255).regex(MEDIA_TYPE, 'must be a media type')).max(50),
    }),
  )
  .max(MAX_INVENTORY_HANDLERS)
  .refine((hs) => new Set(hs.map((h) => h.id)).size === hs.length, 'must not list a handler twice');

/** One node's inventory, as stored by the control plane. */
export interface NodeInventory {
  nodeId: string;
  handlers: HandlerDeclaration[];
  /** A gateway node's last upstream report (ADR 0275); absent: the node forwards to no upstream. */
  upstreams?: UpstreamCardReport[];
}

/** A capability that would reach a card but that some live nodes cannot serve. */
export interface UnservedCapability {
  capabilityId: string;
  handler: string;
  nodesLacking: string[];
  /** Served by an upstream (ADR 0275): why each lacking node cannot serve it, in nodesLacking's order. */
  reasons?: string[];
}

/**
 * Whether a capability is in some card: ga or deprecated and public or extended; a preview only
 * once a tenant it admits has opted in (previews are shown to opted-in tenants only).
 */
export function reachesCard(m: CapabilityManifest, previewTenants: readonly string[]): boolean {
  if (m.visibility === 'internal' || m.state === 'removed') return false;
  if (m.state !== 'preview') return true;
  return previewTenants.some((t) => m.tenants === '*' || m.tenants.includes(t));
}

/**
 * Capabilities this change puts in a card (newly, or with another handler) that some live node
 * does not serve, minus the ones staged with allowUnserved. With no live node nothing is refused:
 * an agent without nodes must stay bootstrappable, and nodes check what they get (ADR 0100).
 */
export function unservedCapabilities(input: {
  before: readonly CapabilityManifest[];
  after: readonly CapabilityManifest[];
  previewTenantsBefore: readonly string[];
  previewTenantsAfter: readonly string[];
  live: readonly NodeInventory[];
  allowUnserved?: readonly string[];
}): UnservedCapability[] {
  if (input.live.length === 0) return [];
  const allowed = new Set(input.allowUnserved ?? []);
  const before = new Map(input.before.map((m) => [m.id, m] as const));
  const served = input.live.map((n) => ({ nodeId: n.nodeId, handlers: new Set(n.handlers.map((h) => h.id)) }));
  const out: UnservedCapability[] = [];
  for (const m of input.after) {
    if (allowed.has(m.id) || !reachesCard(m, input.previewTenantsAfter)) continue;
    const was = before.get(m.id);
    if (was && sameServer(was, m) && reachesCard(was, input.previewTenantsBefore)) continue;
    if (m.upstream) {
      // Served by forwarding, whatever handlers the node has (ADR 0275).
      const lacking = input.live
        .map((n) => ({ nodeId: n.nodeId, reason: upstreamProblem(m, n.upstreams) }))
        .filter((n): n is { nodeId: string; reason: string } => n.reason !== undefined)
        .sort((a, b) => (a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0));
      if (lacking.length > 0)
        out.push({
          capabilityId: m.id,
          handler: m.handler,
          nodesLacking: lacking.map((n) => n.nodeId),
          reasons: lacking.map((n) => n.reason),
        });
      continue;
    }
    const nodesLacking = served
      .filter((n) => !n.handlers.has(m.handler))
      .map((n) => n.nodeId)
      .sort();
    if (nodesLacking.length > 0) out.push({ capabilityId: m.id, handler: m.handler, nodesLacking });
  }
  return out.sort((a, b) => (a.capabilityId < b.capabilityId ? -1 : a.capabilityId > b.capabilityId ? 1 : 0));
}

/** Whether two versions of a capability are served the same way: the same handler and the same upstream skill. */
function sameServer(a: CapabilityManifest, b: CapabilityManifest): boolean {
  if (a.handler !== b.handler || !a.upstream !== !b.upstream) return false;
  if (!a.upstream || !b.upstream) return true;
  return (
    upstreamCardUrl(a.upstream) === upstreamCardUrl(b.upstream) && upstreamSkillId(a.upstream, a.id) === upstreamSkillId(b.upstream, b.id)
  );
}

export function unservedMessage(u: UnservedCapability): string {
  if (u.reasons) {
    const why = u.nodesLacking.map((n, i) => `${n}: ${u.reasons![i]}`).join('; ');
    return (
      `capability "${u.capabilityId}" would be in a card but its upstream cannot be served by live node(s) (${why}): ` +
      `make the upstream answer and list the skill, or stage it (state "preview" with no opted-in tenant, or allowUnserved)`
    );
  }
  return (
    `capability "${u.capabilityId}" would be in a card but its handler "${u.handler}" is not served by live node(s) ` +
    `${u.nodesLacking.join(', ')}: deploy the handler first, or stage it (state "preview" with no opted-in tenant, or allowUnserved)`
  );
}

/**
 * A handler's limit keys as the live nodes serving it declare them: a key counts only when every
 * such node declares it with the same type (a key one replica does not know would be ignored there).
 * undefined when no live node serves the handler (nothing to check against).
 */
export function declaredLimits(handler: string, live: readonly NodeInventory[]): Record<string, LimitType> | undefined {
  const decls = live.flatMap((n) => n.handlers.filter((h) => h.id === handler));
  if (decls.length === 0) return undefined;
  const [first, ...rest] = decls;
  const out: Record<string, LimitType> = {};
  for (const [key, type] of Object.entries(first.limits)) if (rest.every((d) => d.limits[key] === type)) out[key] = type;
  return out;
}

function typeIssue(value: unknown, type: LimitType | 'cost_class'): string | undefined {
  if (type === 'cost_class') return COST_CLASSES.includes(value as never) ? undefined : `must be one of ${COST_CLASSES.join(', ')}`;
  if (typeof value !== 'number' || !Number.isFinite(value)) return `must be a ${type}`;
  if (type === 'integer' && !Number.isInteger(value)) return 'must be an integer (the handler declares it so)';
  return undefined;
}

/**
 * Limits checked against the handler's declaration: generic keys by their type (always), other
 * keys must be declared by the handler with a matching type (when the declaration is known).
 * Paths are under `at` (e.g. `$[3]`), pointing at `.limits.<key>`.
 */
export function limitIssues(
  limits: ManifestLimits,
  handler: string,
  declared: Record<string, LimitType> | undefined,
  at = '$',
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const [key, value] of Object.entries(limits)) {
    if (value === undefined) continue;
    const path = `${at}.limits.${key}`;
    const generic = (GENERIC_LIMITS as Record<string, LimitType | 'cost_class'>)[key];
    if (generic) {
      const problem = typeIssue(value, generic);
      if (problem) issues.push({ path, message: problem });
      else if (key === 'timeout_s' && (value as number) <= 0) issues.push({ path, message: 'must be greater than 0' });
      continue;
    }
    if (!declared) continue;
    const type = declared[key];
    if (!type) {
      const known = Object.keys(declared).sort();
      issues.push({
        path,
        message: `handler "${handler}" does not declare limit "${key}" (it declares ${known.length ? known.join(', ') : 'none'})`,
      });
      continue;
    }
    const problem = typeIssue(value, type);
    if (problem) issues.push({ path, message: problem });
  }
  return issues;
}

/** The limits a handler receives: generic keys plus the keys it declared, each of its declared type; the rest dropped. */
export function typedLimits(limits: ManifestLimits, declared: Record<string, LimitType>): Record<string, number | string> {
  const out: Record<string, number | string> = {};
  for (const [key, value] of Object.entries(limits)) {
    if (value === undefined) continue;
    const type = (GENERIC_LIMITS as Record<string, LimitType | 'cost_class'>)[key] ?? declared[key];
    if (type && typeIssue(value, type) === undefined) out[key] = value;
  }
  return out;
}

/**
 * A node is live while it reports: a heartbeat (every 10 s by default) within this window, and no
 * graceful stop since. Three missed heartbeats and it no longer counts (ADR 0100).
 */
export const LIVE_NODE_WINDOW_MS = 30_000;

/** Nodes whose last report is older than this are not live at `now`. */
export function liveNodeCutoff(now: Date): Date {
  return new Date(now.getTime() - LIVE_NODE_WINDOW_MS);
}

export function isLiveNode(node: { reportedAt: Date; stoppedAt: Date | null }, now: Date): boolean {
  return node.stoppedAt === null && node.reportedAt.getTime() >= liveNodeCutoff(now).getTime();
}
