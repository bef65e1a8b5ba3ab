/**
 * The agent node's Prometheus metrics (ADR 0140). Label values come only from bounded sets: the
 * A2A method names, the two bindings, the A2A error names, the route layers, the capability ids
 * of the bundle being served (anything else is counted as `other`, so a caller cannot mint
 * series), the tools registered on this node. Never a principal, a tenant or free text.
 */
import type { Counter, Histogram, Registry } from 'prom-client';
import type { CallOutcome } from '@cp/node-protocol';
import { counterIn, gaugeIn, histogramIn, type MetricDef } from '@cp/common';
import type { RefreshOutcome } from '../node-sync';
import type { ServedBundle } from '../a2a/served-bundle';
import type {
  A2ABinding,
  A2AObserver,
  CardKind,
  RoutingOutcome,
  ToolCallOutcome,
  ToolObserver,
  ToolTokenOutcome,
  UsageBatchOutcome,
  UsageObserver,
} from './observer';

const def = <L extends string>(d: MetricDef<L>): MetricDef<L> => d;

export const NODE_METRICS = {
  cardRequests: def({
    name: 'a2a_card_requests_total',
    help: 'Agent card answers, by card kind (public, extended) and HTTP status (200, 304, 401, 503, other).',
    type: 'counter',
    labels: ['kind', 'status'],
  }),
  cardDuration: def({
    name: 'a2a_card_duration_seconds',
    help: 'Public agent card answer time in the handler: route matched to response written (timed around the synchronous send).',
    type: 'histogram',
    labels: [],
    buckets: [0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
  }),
  requests: def({
    name: 'a2a_requests_total',
    help: 'A2A operations, by method, binding (jsonrpc, rest) and outcome (ok or the A2A error name).',
    type: 'counter',
    labels: ['method', 'binding', 'outcome'],
  }),
  routing: def({
    name: 'a2a_routing_decisions_total',
    help: 'Routing decisions, by layer and outcome (routed, input-required, refused).',
    type: 'counter',
    labels: ['layer', 'outcome'],
  }),
  denials: def({
    name: 'a2a_entitlement_denials_total',
    help: 'Calls refused by enforcement at execution (the caller is not entitled to the routed capability).',
    type: 'counter',
    labels: ['capability'],
  }),
  handlerDuration: def({
    name: 'a2a_handler_duration_seconds',
    help: 'Handler duration, by capability (ids of the served bundle, else other) and final state.',
    type: 'histogram',
    labels: ['capability', 'state'],
  }),
  outcomes: def({
    name: 'a2a_capability_outcomes_total',
    help: 'Routed calls by capability (ids of the served bundle, else other) and how they ended (completed, failed, rejected, canceled, refused by a limit, inputRequired).',
    type: 'counter',
    labels: ['capability', 'outcome'],
  }),
  toolTokens: def({
    name: 'a2a_tool_token_exchanges_total',
    help: 'Tool-token exchanges at the control plane, by outcome (exchanged, cached, refused, unavailable).',
    type: 'counter',
    labels: ['outcome'],
  }),
  toolCalls: def({
    name: 'a2a_tool_calls_total',
    help: 'Tool calls through the tool gateway, by tool and outcome (ok, failed, refused).',
    type: 'counter',
    labels: ['tool', 'outcome'],
  }),
  openStreams: def({ name: 'a2a_open_streams', help: 'SSE streams open on this node.', type: 'gauge', labels: [] }),
  bundleRevision: def({ name: 'node_bundle_revision', help: 'Revision of the bundle this node serves.', type: 'gauge', labels: [] }),
  bundleAge: def({
    name: 'node_bundle_age_seconds',
    help: 'Seconds since the control plane built the bundle this node serves.',
    type: 'gauge',
    labels: [],
  }),
  syncFetches: def({
    name: 'node_sync_fetches_total',
    help: 'Bundle fetches from the control plane, by outcome (applied, not-modified, refused, unreachable).',
    type: 'counter',
    labels: ['outcome'],
  }),
  syncErrors: def({
    name: 'node_sync_errors_total',
    help: 'Sync errors, by kind (unreachable: no answer or not 200/304; refused: a bundle failed its checks).',
    type: 'counter',
    labels: ['kind'],
  }),
  usageBatches: def({
    name: 'node_usage_batches_total',
    help: 'Usage batches, by outcome (spooled: closed and queued, sent: accepted, refused: set aside).',
    type: 'counter',
    labels: ['outcome'],
  }),
} as const;

const CARD_STATUSES = ['200', '304', '401', '503', 'other'] as const;
/** Most capability ids one node labels series with; past it `other` (a bundle is bounded anyway). */
const MAX_CAPABILITY_LABELS = 500;
const OTHER = 'other';

export interface NodeMetricsSources {
  bundle: () => ServedBundle | undefined;
  openStreams?: () => number;
  /** Tools registered on this node (the tool label's known set). */
  tools?: readonly string[];
}

export class NodeMetrics implements A2AObserver, ToolObserver, UsageObserver {
  private readonly cards: Record<CardKind, Record<(typeof CARD_STATUSES)[number], Counter.Internal>>;
  private readonly cardDuration: Histogram;
  private readonly requests: Counter<'method' | 'binding' | 'outcome'>;
  private readonly routing: Counter<'layer' | 'outcome'>;
  private readonly denials: Counter<'capability'>;
  private readonly handlerDuration;
  private readonly outcomes: Counter<'capability' | 'outcome'>;
  private readonly toolTokens: Counter<'outcome'>;
  private readonly toolCalls: Counter<'tool' | 'outcome'>;
  private readonly syncFetches: Counter<'outcome'>;
  private readonly syncErrors: Counter<'kind'>;
  private readonly usageBatches: Counter<'outcome'>;
  private readonly tools: ReadonlySet<string>;
  private readonly capabilityIds = new WeakMap<object, ReadonlySet<string>>();
  /** Bound children of a2a_requests_total by method, binding and outcome (all bounded sets), made once each. */
  private readonly requestChildren = new Map<string, Counter.Internal>();
  private openStreams: () => number;

  constructor(
    registry: Registry,
    private readonly sources: NodeMetricsSources,
  ) {
    const cards = counterIn(registry, NODE_METRICS.cardRequests);
    const bind = (kind: CardKind) =>
      Object.fromEntries(CARD_STATUSES.map((status) => [status, cards.labels(kind, status)])) as Record<
        (typeof CARD_STATUSES)[number],
        Counter.Internal
      >;
    this.cards = { public: bind('public'), extended: bind('extended') };
    this.cardDuration = histogramIn(registry, NODE_METRICS.cardDuration);
    this.requests = counterIn(registry, NODE_METRICS.requests);
    this.routing = counterIn(registry, NODE_METRICS.routing);
    this.denials = counterIn(registry, NODE_METRICS.denials);
    this.handlerDuration = histogramIn(registry, NODE_METRICS.handlerDuration);
    this.outcomes = counterIn(registry, NODE_METRICS.outcomes);
    this.toolTokens = counterIn(registry, NODE_METRICS.toolTokens);
    this.toolCalls = counterIn(registry, NODE_METRICS.toolCalls);
    this.syncFetches = counterIn(registry, NODE_METRICS.syncFetches);
    this.syncErrors = counterIn(registry, NODE_METRICS.syncErrors);
    this.usageBatches = counterIn(registry, NODE_METRICS.usageBatches);
    this.tools = new Set(sources.tools ?? []);
    this.openStreams = sources.openStreams ?? (() => 0);
    const streams = () => this.openStreams();
    gaugeIn(registry, NODE_METRICS.openStreams, function () {
      this.set(streams());
    });
    gaugeIn(registry, NODE_METRICS.bundleRevision, function () {
      const b = sources.bundle();
      if (b) this.set(b.revision);
      else this.reset();
    });
    gaugeIn(registry, NODE_METRICS.bundleAge, function () {
      const generated = Date.parse(sources.bundle()?.bundle?.generatedAt ?? '');
      if (Number.isFinite(generated)) this.set(Math.max(0, (Date.now() - generated) / 1000));
      else this.reset();
    });
  }

  /** Where the open-streams gauge reads from (the A2A service is built after the metrics). */
  countStreams(openStreams: () => number): void {
    this.openStreams = openStreams;
  }

  card(kind: CardKind, status: number): void {
    const byStatus = this.cards[kind];
    (status === 200
      ? byStatus['200']
      : status === 304
        ? byStatus['304']
        : status === 401
          ? byStatus['401']
          : status === 503
            ? byStatus['503']
            : byStatus.other
    ).inc();
  }

  cardLatency(seconds: number): void {
    this.cardDuration.observe(seconds);
  }

  request(method: string, binding: A2ABinding, outcome: string): void {
    const key = `${method} ${binding} ${outcome}`;
    let child = this.requestChildren.get(key);
    if (!child) {
      child = this.requests.labels(method, binding, outcome);
      // The sets are bounded by the callers (ADR 140); the cap only keeps a caller bug from growing the map.
      if (this.requestChildren.size < 1000) this.requestChildren.set(key, child);
    }
    child.inc();
  }

  routed(layer: string, outcome: RoutingOutcome): void {
    this.routing.labels(layer, outcome).inc();
  }

  denied(capabilityId: string): void {
    this.denials.labels(this.capability(capabilityId)).inc();
  }

  handled(capabilityId: string, state: string, seconds: number): void {
    this.handlerDuration.labels(this.capability(capabilityId), state).observe(seconds);
  }

  outcome(capabilityId: string, outcome: CallOutcome): void {
    // Bounded: capability ids of the bundle (else other) × the six outcomes of the wire (CALL_OUTCOMES).
    this.outcomes.labels(this.capability(capabilityId), outcome).inc();
  }

  token(outcome: ToolTokenOutcome): void {
    this.toolTokens.labels(outcome).inc();
  }

  call(tool: string, outcome: ToolCallOutcome): void {
    this.toolCalls.labels(this.tools.has(tool) ? tool : OTHER, outcome).inc();
  }

  batch(outcome: UsageBatchOutcome): void {
    this.usageBatches.labels(outcome).inc();
  }

  /** For NodeSync: every fetch outcome, and the errors among them. */
  fetched(outcome: RefreshOutcome): void {
    if (outcome === 'stopped') return;
    this.syncFetches.labels(outcome).inc();
    if (outcome === 'refused' || outcome === 'unreachable') this.syncErrors.labels(outcome).inc();
  }

  /** A capability id of the bundle being served, else `other`. */
  private capability(id: string): string {
    const bundle = this.sources.bundle();
    if (!bundle) return OTHER;
    let known = this.capabilityIds.get(bundle);
    if (!known) {
      known = new Set(bundle.policy.entries.slice(0, MAX_CAPABILITY_LABELS).map((e) => e.capabilityId));
      this.capabilityIds.set(bundle, known);
    }
    return known.has(id) ? id : OTHER;
  }
}
