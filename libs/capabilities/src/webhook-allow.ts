import ipaddr from 'ipaddr.js';
import { getPublicSuffix } from 'tldts';
import { z } from 'zod';

/**
 * What an agent's `protocol.webhookAllow` may hold (ADR 0211): one rule for the admin API and
 * cpctl's agent.yaml, and the filter agent nodes apply to what the registry sends them.
 *
 * The list exists to let push webhooks reach named private hosts. Anything a push config names is
 * chosen by an anonymous caller, so an entry must never open more than that:
 * - an IP or CIDR must lie wholly inside one private range (RFC 1918, loopback, carrier-grade NAT,
 *   unique-local v6): `0.0.0.0/0`, `::/0`, `::ffff:0:0/96`, `64:ff9b::/96` and public ranges are
 *   refused (public addresses need no entry; the rest would switch the guard off);
 * - nothing link-local (169.254.0.0/16, fe80::/10: the cloud metadata services) nor any range holding
 *   a known metadata address (AWS's fd00:ec2::254, Alibaba's 100.100.100.200), nor 0.0.0.0;
 * - a `*.domain` wildcard needs at least two labels after `*.` and a domain that is not itself a
 *   public suffix (`*.com`, `*.co.uk`, `*.github.io`: anyone can register a name there and point it
 *   at a private address);
 * - host names the metadata services answer to are refused by name too.
 */

/** The private ranges an IP or CIDR entry must lie wholly inside. */
const PRIVATE_BLOCKS = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '127.0.0.0/8', 'fc00::/7', '::1/128'];
const PRIVATE = PRIVATE_BLOCKS.map((block) => ipaddr.parseCIDR(block));

/** Metadata services outside link-local (inside ranges an entry may otherwise name). */
export const METADATA_ADDRESSES: readonly string[] = ['fd00:ec2::254', '100.100.100.200'];

/** Names the metadata services answer to (GCP, AWS, Azure, OpenStack). */
const METADATA_HOSTS = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.com',
  'metadata.packet.net',
]);

const HOST_NAME = /^(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

type Addr = ipaddr.IPv4 | ipaddr.IPv6;

function cidrOf(entry: string): [Addr, number] | undefined {
  try {
    if (entry.includes('/')) return ipaddr.parseCIDR(entry);
    if (!ipaddr.isValid(entry)) return undefined;
    const ip = ipaddr.parse(entry);
    return [ip, ip.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return undefined;
  }
}

function wholePrivate(ip: Addr, prefix: number): boolean {
  return PRIVATE.some(([net, bits]) => net.kind() === ip.kind() && prefix >= bits && ip.match(net, bits));
}

/** Why one allow-list entry is refused; undefined when it is acceptable. */
export function webhookAllowEntryProblem(raw: string): string | undefined {
  const entry = raw.trim().toLowerCase();
  const shown = JSON.stringify(raw.slice(0, 80));
  if (entry.length === 0 || entry.length > 253) return `${shown} is not a host name, *.domain, IP or CIDR`;
  if (entry.includes('/') || ipaddr.isValid(entry)) {
    const cidr = cidrOf(entry);
    if (!cidr) return `${shown} is not a host name, *.domain, IP or CIDR`;
    const [ip, prefix] = cidr;
    const range = ip.range();
    if (range === 'linkLocal') return `${shown} is link-local (cloud metadata services live there) and is never allowed`;
    if (range === 'ipv4Mapped' || range === 'rfc6052' || range === '6to4' || range === 'teredo') {
      return `${shown} embeds IPv4 addresses: name the IPv4 address or range itself`;
    }
    if (!wholePrivate(ip, prefix)) {
      return prefix === 0 || range === 'unspecified'
        ? `${shown} would allow every address: name the private hosts or ranges webhooks need`
        : `${shown} is not wholly inside one private range (${PRIVATE_BLOCKS.join(', ')}); public addresses need no entry`;
    }
    const metadata = METADATA_ADDRESSES.find((m) => {
      const addr = ipaddr.parse(m);
      return addr.kind() === ip.kind() && addr.match(ip, prefix);
    });
    if (metadata) return `${shown} holds the cloud metadata address ${metadata} and is never allowed`;
    return undefined;
  }
  if (!HOST_NAME.test(entry)) return `${shown} is not a host name, *.domain, IP or CIDR`;
  const name = entry.replace(/^\*\./, '');
  if (METADATA_HOSTS.has(name.replace(/\.$/, ''))) return `${shown} names a cloud metadata service and is never allowed`;
  if (entry.startsWith('*.')) {
    if (!name.includes('.')) return `${shown} is a one-label wildcard: name a domain you control, like *.hooks.example.com`;
    if (getPublicSuffix(name, { allowPrivateDomains: true }) === name) {
      return `${shown} covers a public suffix (anyone can register names under it): name a domain you control`;
    }
  }
  return undefined;
}

/** Every refused entry with its reason. */
export function webhookAllowProblems(list: readonly string[]): { entry: string; reason: string }[] {
  return list.flatMap((entry) => {
    const reason = webhookAllowEntryProblem(entry);
    return reason ? [{ entry, reason }] : [];
  });
}

/** The entries an agent node honours: the acceptable ones (a list stored before ADR 0211 may hold others). */
export function usableWebhookAllow(list: readonly string[]): string[] {
  return list.filter((entry) => webhookAllowEntryProblem(entry) === undefined);
}

/**
 * Whether entry `outer` lets through everything `inner` does, as the node matches them
 * (libs/common/src/net/webhook-url.ts): a CIDR or IP covers the addresses inside it (`10.0.0.0/8`
 * covers `10.20.0.0/16` and `10.20.0.1`, `fd12::/16` covers `fd12:0::1/64` however it is written);
 * a host name covers itself (case-insensitive); `*.corp.example` covers the names under it
 * (`hooks.corp.example`, `*.eu.corp.example`) but not `corp.example`. Names and addresses never
 * cover each other: a name is allowed whatever it resolves to. The rule of what widens a list is
 * the approval policy's (change-kinds.ts); this only says what one entry matches.
 */
export function allowEntryCovers(outer: string, inner: string): boolean {
  const o = outer.trim().toLowerCase();
  const i = inner.trim().toLowerCase();
  if (o === i) return true;
  const isAddress = (e: string) => e.includes('/') || ipaddr.isValid(e);
  if (isAddress(o) || isAddress(i)) {
    const [oc, ic] = [cidrOf(o), cidrOf(i)];
    if (!oc || !ic || oc[0].kind() !== ic[0].kind()) return false;
    return ic[1] >= oc[1] && ic[0].match(oc[0], oc[1]);
  }
  if (!o.startsWith('*.')) return false;
  const suffix = o.slice(1);
  return i.endsWith(suffix) && i.length > suffix.length;
}

/** The zod rule for the list: at most 50 entries, each acceptable, each refusal naming its reason. */
export const webhookAllowSchema = z
  .array(z.string().max(253))
  .max(50, 'at most 50 entries')
  .superRefine((list, ctx) => {
    list.forEach((entry, index) => {
      const reason = webhookAllowEntryProblem(entry);
      if (reason) ctx.addIssue({ code: 'custom', path: [index], message: reason });
    });
  });

/**
 * Entries of `next` that no entry of `previous` covers (allowEntryCovers: the node's own
 * matching): what a change of an allow list opens. Removing an entry, or replacing one with a
 * narrower one it covered (`10.0.0.0/8` → `10.20.0.0/16`, `*.corp.example` →
 * `hooks.corp.example`), opens nothing; a new entry, or a broader one, does.
 */
export function widenedAllowEntries(previous: readonly string[], next: readonly string[]): string[] {
  return [...new Set(next.filter((entry) => !previous.some((held) => allowEntryCovers(held, entry))))];
}
