/**
 * What the A2A layer reads from the node's current bundle. ActiveBundle (node-sync) fits it;
 * the interface keeps the server independent of where bundles come from.
 */
import type { AgentExtension, Caller, CostBudgets, EntitlementContext, ExecutionPolicy, RouterIndex } from '@cp/capabilities';

export interface ServedCard {
  body: string;
  etag: string;
}

export interface ServedBundle {
  readonly revision: number;
  readonly publicCard: ServedCard;
  /** undefined: the card declares an extended card but none is configured. */
  extendedCardFor(caller: Caller): ServedCard | undefined;
  routerIndexFor(caller: Caller): RouterIndex;
  readonly policy: ExecutionPolicy;
  readonly entitlementContext: EntitlementContext;
  /** The agent's rate budgets by cost class (issue 14); absent: none. */
  readonly costBudgets?: CostBudgets;
  /** When the control plane built this bundle (ISO 8601): the bundle-age metric. */
  readonly bundle?: { readonly generatedAt?: string };
}

/** What the public card declares: the switches the node must honour exactly. */
export interface Declared {
  streaming: boolean;
  pushNotifications: boolean;
  extendedAgentCard: boolean;
  extensions: AgentExtension[];
  /** The public card as bytes, sent without per-request serialization. */
  publicCardBytes: Buffer;
}

const declared = new WeakMap<ServedBundle, Declared>();

/** Parsed once per bundle (bundles are immutable and swapped whole). */
export function declaredBy(bundle: ServedBundle): Declared {
  let d = declared.get(bundle);
  if (!d) {
    const card = JSON.parse(bundle.publicCard.body) as { capabilities?: Partial<Omit<Declared, 'publicCardBytes'>> };
    const c = card.capabilities ?? {};
    d = {
      streaming: c.streaming === true,
      pushNotifications: c.pushNotifications === true,
      extendedAgentCard: c.extendedAgentCard === true,
      extensions: Array.isArray(c.extensions) ? c.extensions : [],
      publicCardBytes: Buffer.from(bundle.publicCard.body, 'utf8'),
    };
    declared.set(bundle, d);
  }
  return d;
}
