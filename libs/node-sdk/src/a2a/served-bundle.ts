/**
 * What the A2A layer reads from the node's current bundle. ActiveBundle (node-sync) fits it;
 * the interface keeps the server independent of where bundles come from.
 */
import { cardToV03 } from './v03/card';
import type { ProtocolVersion } from './version';
import type { AgentExtension, Caller, CostBudgets, EntitlementContext, ExecutionPolicy, RouterIndex } from '@cp/capabilities';
import type { AiCatalogHost, AiCatalogPublisher } from '@cp/node-protocol';

export interface ServedCard {
  body: string;
  etag: string;
}

export interface ServedBundle {
  readonly revision: number;
  readonly publicCard: ServedCard;
  /** undefined: the card declares an extended card but none is configured. */
  extendedCardFor(caller: Caller): ServedCard | undefined;
  /** The extended card signed where it can be (a class past the bundle's limit: signatures asked for once, ADR 0132). */
  signedExtendedCardFor?(caller: Caller): ServedCard | Promise<ServedCard> | undefined;
  routerIndexFor(caller: Caller): RouterIndex;
  /**
   * The node's AI Catalog for this caller as JSON text, signed where a signature is at hand
   * (ADR 0315); `defaults` name host and publisher when the bundle does not. Absent: built unsigned.
   */
  catalogFor?(caller: Caller, defaults: { host: AiCatalogHost; publisher: AiCatalogPublisher }): string | Promise<string>;
  readonly policy: ExecutionPolicy;
  readonly entitlementContext: EntitlementContext;
  /** The agent's rate budgets by cost class (issue 14); absent: none. */
  readonly costBudgets?: CostBudgets;
  /** When the control plane built this bundle (ISO 8601): the bundle-age metric. */
  readonly bundle?: { readonly generatedAt?: string };
  /** Hosts, IPs or CIDRs push-notification webhooks may reach although private (ADR 0162); absent: none. */
  readonly webhookAllow?: readonly string[];
  /** Hosts, IPs or CIDRs upstream agents may be reached at although private (ADR 0230); absent: none. */
  readonly upstreamAllow?: readonly string[];
}

/** What the public card declares: the switches the node must honour exactly. */
export interface Declared {
  streaming: boolean;
  pushNotifications: boolean;
  extendedAgentCard: boolean;
  extensions: AgentExtension[];
  /** The public card as bytes, sent without per-request serialization. */
  publicCardBytes: Buffer;
  /** A2A versions served per binding: 1.0 always, 0.3 where the card lists a 0.3 interface (ADR 0160). */
  versions: { jsonrpc: ReadonlySet<ProtocolVersion>; rest: ReadonlySet<ProtocolVersion> };
  /** The hybrid card 0.3 clients read, when the agent serves 0.3 (else undefined). */
  v03Card?: ServedCard;
}

const declared = new WeakMap<ServedBundle, Declared>();

/** Parsed once per bundle (bundles are immutable and swapped whole). */
export function declaredBy(bundle: ServedBundle): Declared {
  let d = declared.get(bundle);
  if (!d) {
    const card = JSON.parse(bundle.publicCard.body) as {
      capabilities?: Partial<Pick<Declared, 'streaming' | 'pushNotifications' | 'extendedAgentCard' | 'extensions'>>;
      supportedInterfaces?: { protocolBinding?: string; protocolVersion?: string }[];
    };
    const c = card.capabilities ?? {};
    const interfaces = Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : [];
    const v03On = (binding: string) =>
      interfaces.some((i) => i.protocolBinding === binding && /^0\.3(\.\d+)?$/.test(i.protocolVersion ?? ''));
    const versions = (binding: string): ReadonlySet<ProtocolVersion> => new Set<ProtocolVersion>(v03On(binding) ? ['1.0', '0.3'] : ['1.0']);
    const jsonrpc = versions('JSONRPC');
    const rest = versions('HTTP+JSON');
    d = {
      streaming: c.streaming === true,
      pushNotifications: c.pushNotifications === true,
      extendedAgentCard: c.extendedAgentCard === true,
      extensions: Array.isArray(c.extensions) ? c.extensions : [],
      publicCardBytes: Buffer.from(bundle.publicCard.body, 'utf8'),
      versions: { jsonrpc, rest },
    };
    if (jsonrpc.has('0.3') || rest.has('0.3')) {
      const etag = bundle.publicCard.etag;
      // A distinct ETag per shape: caches keyed on the URL alone (Vary: A2A-Version) never mix them.
      d.v03Card = {
        body: JSON.stringify(cardToV03(card)),
        etag: etag.endsWith('"') ? `${etag.slice(0, -1)}-v03"` : `${etag}-v03`,
      };
    }
    declared.set(bundle, d);
  }
  return d;
}
