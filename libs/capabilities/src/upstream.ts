/**
 * The `upstream` block of a manifest (issue 28, ADR 0230): the A2A agent that serves the
 * capability when the node is a gateway in front of it. Server-side only, like `tools` and routing
 * hints: no card, router index or projection a caller sees carries it. Keys are single words so
 * the document and the domain share one shape (no case mapping to get wrong).
 *
 * The URL is checked here for what can be decided without the network (scheme, credentials,
 * length, literal addresses and names that are never reachable); the node checks every resolved
 * address before each connection with the webhook rules (libs/common/src/net/webhook-url.ts), with
 * the agent's platform-admin `protocol.upstreamAllow` as the only way to reach private addresses.
 */
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { SCOPE } from './formats';

export const UPSTREAM_BINDINGS = ['jsonrpc', 'http+json'] as const;
export const UPSTREAM_VERSIONS = ['1.0', '0.3'] as const;
export type UpstreamBinding = (typeof UPSTREAM_BINDINGS)[number];
export type UpstreamVersion = (typeof UPSTREAM_VERSIONS)[number];

/** Bounds and defaults of the three timeouts, in milliseconds. */
export const UPSTREAM_TIMEOUTS = {
  connect: { min: 100, max: 30_000, default: 5_000 },
  request: { min: 100, max: 600_000, default: 60_000 },
  idle: { min: 100, max: 300_000, default: 30_000 },
} as const;

export const UPSTREAM_URL_MAX = 2048;
/** Longest upstream skill id a manifest may name (A2A skill ids are free strings). */
export const UPSTREAM_SKILL_MAX = 256;

/** Names the cloud metadata services answer to: never an upstream, whatever the allow list says. */
const METADATA_HOSTS = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.com',
  'metadata.packet.net',
]);
const METADATA_ADDRESSES = ['fd00:ec2::254', '100.100.100.200'].map((a) => ipaddr.parse(a).toNormalizedString());

/**
 * The IPv4 address an IPv6 form carries (mapped, IPv4-compatible ::/96, NAT64, 6to4), if any. The
 * pure core may not import libs/common, so this mirrors its `embeddedIPv4` (webhook-url.ts), which
 * the node applies to every resolved address before each connection: keep the two alike.
 */
function embedded(ip: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (!(ip instanceof ipaddr.IPv6)) return undefined;
  if (ip.isIPv4MappedAddress()) return ip.toIPv4Address();
  const p = ip.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  if (p.slice(0, 6).every((x) => x === 0) && !(p[6] === 0 && p[7] <= 1)) return v4(p[6], p[7]);
  if (ip.range() === 'rfc6052') return v4(p[6], p[7]);
  if (ip.range() === '6to4') return v4(p[1], p[2]);
  return undefined;
}

/** Why an upstream URL is refused before any network call; undefined when its shape is acceptable. */
export function upstreamUrlProblem(raw: string): string | undefined {
  if (raw.length > UPSTREAM_URL_MAX) return `must be at most ${UPSTREAM_URL_MAX} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `scheme "${url.protocol.replace(/:$/, '')}" is not allowed (http or https only)`;
  if (url.username || url.password) return 'must not carry credentials (the node authenticates with an exchanged token)';
  if (url.hash) return 'must not have a fragment';
  if (url.search) return 'must not have a query string';
  const host = url.hostname
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase()
    .replace(/\.$/, '');
  if (!host) return 'has no host';
  if (METADATA_HOSTS.has(host)) return `host "${host}" names a cloud metadata service and is never allowed`;
  if (ipaddr.isValid(host)) {
    const parsed = ipaddr.parse(host);
    for (const ip of [parsed, embedded(parsed)]) {
      if (!ip) continue;
      const range = ip.range();
      if (range === 'linkLocal' || range === 'unspecified' || range === 'multicast' || range === 'broadcast')
        return `host ${host} is ${range} and is never allowed`;
      if (METADATA_ADDRESSES.includes(ip.toNormalizedString())) return `host ${host} is a cloud metadata address and is never allowed`;
    }
  } else if (/^\d+$/.test(host) || /^0x/i.test(host)) {
    return `host "${host}" is a numeric address form: write the address in dotted or IPv6 notation`;
  }
  return undefined;
}

const timeout = (key: keyof typeof UPSTREAM_TIMEOUTS) => {
  const { min, max } = UPSTREAM_TIMEOUTS[key];
  return z
    .number()
    .int('must be a whole number of milliseconds')
    .min(min, `must be at least ${min} ms`)
    .max(max, `must be at most ${max} ms`)
    .optional();
};

export const upstreamSchema = z.strictObject({
  url: z.string().superRefine((v, ctx) => {
    const problem = upstreamUrlProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  binding: z.enum(UPSTREAM_BINDINGS, { error: 'must be "jsonrpc" or "http+json"' }),
  version: z.enum(UPSTREAM_VERSIONS, { error: 'must be "1.0" or "0.3"' }),
  /**
   * The upstream's own agent card (servability and drift, ADR 0275): the node fetches it to tell
   * whether the upstream answers and still lists `skill`. Default: `/.well-known/agent-card.json`
   * at the URL's origin. Same URL rules as `url`.
   */
  card: z
    .string()
    .superRefine((v, ctx) => {
      const problem = upstreamUrlProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  /** The id of the skill on the upstream's card this capability is (default: the capability id). */
  skill: z
    .string()
    .min(1, 'must not be empty')
    .max(UPSTREAM_SKILL_MAX, `must be at most ${UPSTREAM_SKILL_MAX} characters`)
    .regex(/^[^\p{Cc}]*$/u, 'must not contain control characters')
    .optional(),
  /** Milliseconds: connecting, the whole exchange, and the longest silence on a stream. */
  timeouts: z.strictObject({ connect: timeout('connect'), request: timeout('request'), idle: timeout('idle') }).optional(),
  /**
   * How the node authenticates: always a token from the control plane's token exchange (never the
   * caller's token nor the node's credential). `audience` defaults to the URL's origin; `scopes`
   * (what the capability may use upstream) default to the manifest's requires_scopes.
   */
  auth: z
    .strictObject({
      kind: z.literal('token-exchange', { error: 'must be "token-exchange" (the only way a node authenticates to an upstream)' }),
      audience: z.string().trim().min(1, 'must not be empty').max(512, 'must be at most 512 characters').optional(),
      scopes: z.array(z.string().regex(SCOPE, 'must be a scope such as recon.run')).max(50, 'must list at most 50 scopes').optional(),
    })
    .optional(),
});
export type UpstreamSpec = z.infer<typeof upstreamSchema>;

/** The timeouts with their defaults filled in. */
export function upstreamTimeouts(spec: Pick<UpstreamSpec, 'timeouts'>): { connect: number; request: number; idle: number } {
  return {
    connect: spec.timeouts?.connect ?? UPSTREAM_TIMEOUTS.connect.default,
    request: spec.timeouts?.request ?? UPSTREAM_TIMEOUTS.request.default,
    idle: spec.timeouts?.idle ?? UPSTREAM_TIMEOUTS.idle.default,
  };
}

/** The audience an upstream token names: the configured one, else the URL's origin. */
export const upstreamAudience = (spec: Pick<UpstreamSpec, 'url' | 'auth'>): string => spec.auth?.audience ?? new URL(spec.url).origin;

/** The scopes a capability may use upstream: its auth.scopes, else what it requires of callers. */
export const upstreamScopes = (spec: Pick<UpstreamSpec, 'auth'>, requiresScopes: readonly string[]): string[] => [
  ...(spec.auth?.scopes ?? requiresScopes),
];

/** Where the upstream's own card is: `card`, else `/.well-known/agent-card.json` at the URL's origin (ADR 0275). */
export const upstreamCardUrl = (spec: Pick<UpstreamSpec, 'url' | 'card'>): string =>
  spec.card ?? `${new URL(spec.url).origin}/.well-known/agent-card.json`;

/** The skill of the upstream's card a capability is: `skill`, else the capability id. */
export const upstreamSkillId = (spec: Pick<UpstreamSpec, 'skill'>, capabilityId: string): string => spec.skill ?? capabilityId;
