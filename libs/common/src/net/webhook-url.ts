import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Outbound calls to URLs a caller chose (push-notification webhooks, deprecation notices) are an
 * SSRF vector: a caller could make the node call its own admin ports, the cloud metadata service or
 * a host on the private network. Every such call goes through here:
 * - `parseWebhookUrl`: http(s) only, no credentials, bounded length;
 * - `resolveAndCheck`: resolves the host and refuses any address that is not global unicast
 *   (loopback, RFC 1918, link-local and 169.254.169.254, CGNAT, unique-local v6, IPv4-mapped and
 *   other embedded-v4 v6 forms, 0.0.0.0/::, multicast, reserved) unless the policy's allow-list
 *   permits the host name or a CIDR holding the address;
 * - `safeFetch`: connects to exactly the address it checked (the socket's DNS lookup is pinned, so
 *   a second answer from a rebinding DNS server never reaches the connect), re-checks every
 *   redirect target, never carries the caller's headers (credentials) to another origin, and
 *   bounds redirects, time and response size.
 * Link-local addresses (169.254.0.0/16, fe80::/10: the cloud metadata services live there), the
 * other known metadata addresses and the unspecified address are refused whatever the allow-list
 * says, also when they hide inside an IPv6 form (IPv4-mapped, NAT64, 6to4).
 */
export interface WebhookPolicy {
  /** Host names (exact, case-insensitive; `*.example.com` for sub-domains), IPs or CIDRs that may be private. */
  allow?: readonly string[];
  /** Redirects followed before giving up (default 3; 0 refuses every redirect). */
  maxRedirects?: number;
  /** Deadline for the whole call, redirects included (default 5000 ms). */
  timeoutMs?: number;
  /** Largest response body read (default 64 KiB); a longer one fails the call. */
  maxResponseBytes?: number;
  /** Longest URL accepted (default 2048 characters). */
  maxUrlLength?: number;
  /** DNS resolution, injectable for tests (default: the system resolver, every address). */
  resolve?: HostResolver;
  /**
   * What the call is, as refusals and failures name it: "the <purpose> URL …", "the <purpose> host …"
   * (default "webhook"; the gateway says "upstream", its probe "upstream card").
   */
  purpose?: string;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}
export type HostResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export type WebhookUrlResult = { ok: true; url: URL } | { ok: false; reason: string };
export type AddressCheckResult = { ok: true; url: URL; address: string; family: 4 | 6 } | { ok: false; reason: string };

export enum WebhookErrorCode {
  /** The URL or an address it resolves to is not allowed (never retry). */
  Refused = 'REFUSED',
  /** Too many redirects, or a redirect without a usable Location (never retry). */
  Redirects = 'REDIRECTS',
  /** The response body exceeded maxResponseBytes (never retry). */
  TooLarge = 'TOO_LARGE',
  /** The deadline passed (worth a retry). */
  Timeout = 'TIMEOUT',
  /** DNS failure, refused connection, reset (worth a retry). */
  Network = 'NETWORK',
}

export class WebhookError extends Error {
  constructor(
    readonly code: WebhookErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookError';
  }
  /** Whether the same call could succeed later. */
  get retryable(): boolean {
    return this.code === WebhookErrorCode.Timeout || this.code === WebhookErrorCode.Network;
  }
}

export interface SafeFetchInit {
  method?: string;
  headers?: Readonly<Record<string, string>>;
  body?: string | Buffer;
}
export interface SafeFetchResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The URL that answered, after redirects. */
  url: string;
}

const DEFAULTS = { maxRedirects: 3, timeoutMs: 5000, maxResponseBytes: 64 * 1024, maxUrlLength: 2048 } as const;

const purposeOf = (policy: WebhookPolicy): string => policy.purpose ?? 'webhook';

const systemResolver: HostResolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** Checks the shape of a caller-supplied webhook URL; no network. */
export function parseWebhookUrl(raw: unknown, policy: WebhookPolicy = {}): WebhookUrlResult {
  const max = policy.maxUrlLength ?? DEFAULTS.maxUrlLength;
  const what = purposeOf(policy);
  if (typeof raw !== 'string' || raw.length === 0) return { ok: false, reason: `the ${what} URL must be a non-empty string` };
  if (raw.length > max) return { ok: false, reason: `the ${what} URL is longer than ${max} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: `the ${what} URL is not a valid absolute URL` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: `the ${what} URL scheme "${url.protocol.replace(/:$/, '')}" is not allowed (http or https only)` };
  }
  if (url.username || url.password) return { ok: false, reason: `the ${what} URL must not carry credentials` };
  if (!url.hostname) return { ok: false, reason: `the ${what} URL has no host` };
  return { ok: true, url };
}

/** `[::1]` → `::1`: URL keeps the brackets of an IPv6 literal. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

/**
 * An IPv4-compatible IPv6 address (::a.b.c.d, deprecated by RFC 4291 §2.5.5.1): ipaddr.js calls it
 * "unicast", but it is no global address, and a stack that still tunnels it reaches a.b.c.d.
 * `::` and `::1` have ranges of their own.
 */
function isIPv4Compatible(ip: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (!(ip instanceof ipaddr.IPv6)) return false;
  const p = ip.parts;
  return p.slice(0, 6).every((x) => x === 0) && !(p[6] === 0 && p[7] <= 1);
}

/** "unicast" for a global address, else ipaddr.js's name for its special range (e.g. "loopback", "private"). */
export function addressRange(address: string): string {
  const ip = ipaddr.parse(address);
  return isIPv4Compatible(ip) ? 'ipv4Compatible' : ip.range();
}

function hostAllowed(host: string, allow: readonly string[]): boolean {
  return allow.some((entry) => {
    const e = entry.toLowerCase();
    if (e.startsWith('*.')) return host.endsWith(e.slice(1)) && host.length > e.length - 1;
    return !ipaddr.isValid(e) && !e.includes('/') && e === host;
  });
}

function addressAllowed(address: string, allow: readonly string[]): boolean {
  const parsed = ipaddr.parse(address);
  const candidates: (ipaddr.IPv4 | ipaddr.IPv6)[] = [parsed];
  // An IPv4-mapped v6 address reaches the v4 host: a v4 CIDR that allows the host allows it too.
  if (parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress()) candidates.push(parsed.toIPv4Address());
  return allow.some((entry) => {
    const cidr = cidrOf(entry);
    return cidr !== undefined && candidates.some((c) => c.kind() === cidr[0].kind() && c.match(cidr));
  });
}

/** An allow-list entry as a CIDR (an IP is its own /32 or /128); undefined for a host name. */
function cidrOf(entry: string): [ipaddr.IPv4 | ipaddr.IPv6, number] | undefined {
  try {
    if (entry.includes('/')) return ipaddr.parseCIDR(entry);
    if (!ipaddr.isValid(entry)) return undefined;
    const ip = ipaddr.parse(entry);
    return [ip, ip.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return undefined;
  }
}

/** Entries of an allow-list that are neither a host name, a `*.` pattern, an IP nor a CIDR. */
export function invalidAllowEntries(allow: readonly string[]): string[] {
  return allow.filter((entry) => {
    if (entry.includes('/') || ipaddr.isValid(entry)) return cidrOf(entry) === undefined;
    return !/^(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(entry) || entry.length > 253;
  });
}

/**
 * Resolves the URL's host and picks the address to connect to. Refuses when ANY resolved address is
 * not allowed: a name that resolves to both a public and a private address is an attack, not a choice.
 */
export async function resolveAndCheck(url: URL, policy: WebhookPolicy = {}): Promise<AddressCheckResult> {
  const allow = policy.allow ?? [];
  const what = purposeOf(policy);
  const host = bareHost(url);
  const nameAllowed = hostAllowed(host, allow);
  let addresses: readonly ResolvedAddress[];
  if (ipaddr.isValid(host)) {
    addresses = [{ address: host, family: ipaddr.parse(host).kind() === 'ipv4' ? 4 : 6 }];
  } else {
    try {
      addresses = await (policy.resolve ?? systemResolver)(host);
    } catch (error) {
      return { ok: false, reason: `the ${what} host "${host}" does not resolve (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
    }
  }
  if (addresses.length === 0) return { ok: false, reason: `the ${what} host "${host}" does not resolve` };
  for (const { address } of addresses) {
    if (!ipaddr.isValid(address)) return { ok: false, reason: `the ${what} host "${host}" resolved to a malformed address` };
    const never = neverReachable(address);
    if (never) return { ok: false, reason: `the ${what} host "${host}" resolves to ${address} (${never}), which is never allowed` };
    const range = addressRange(address);
    if (range !== 'unicast' && !nameAllowed && !addressAllowed(address, allow)) {
      return { ok: false, reason: `the ${what} host "${host}" resolves to ${address} (${range}), which is not allowed` };
    }
  }
  const [first] = addresses;
  return { ok: true, url, address: first.address, family: first.family };
}

/**
 * Metadata services outside link-local: AWS's IPv6 endpoint (inside unique-local fd00::/8) and
 * Alibaba Cloud's (inside carrier-grade NAT 100.64.0.0/10), so allowing those ranges never opens them.
 */
export const METADATA_ADDRESSES: readonly string[] = ['fd00:ec2::254', '100.100.100.200'];
const METADATA = METADATA_ADDRESSES.map((a) => ipaddr.parse(a).toNormalizedString());

/**
 * The IPv4 address an IPv6 form carries to (IPv4-mapped, IPv4-compatible ::/96, NAT64 64:ff9b::/96,
 * 6to4 2002::/16), if any.
 */
export function embeddedIPv4(ip: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (!(ip instanceof ipaddr.IPv6)) return undefined;
  if (ip.isIPv4MappedAddress()) return ip.toIPv4Address();
  const p = ip.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  if (isIPv4Compatible(ip)) return v4(p[6], p[7]);
  if (ip.range() === 'rfc6052') return v4(p[6], p[7]);
  if (ip.range() === '6to4') return v4(p[1], p[2]);
  return undefined;
}

/** Why an address may never be a webhook target whatever the allow-list says; undefined if it may. */
export function neverReachable(address: string): string | undefined {
  const parsed = ipaddr.parse(address);
  for (const ip of [parsed, embeddedIPv4(parsed)]) {
    if (!ip) continue;
    const range = ip.range();
    if (range === 'linkLocal' || range === 'unspecified') return range;
    if (METADATA.includes(ip.toNormalizedString())) return 'cloud metadata';
  }
  return undefined;
}

/** A socket lookup that answers with the checked address only, whatever DNS would say now. */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as LookupFunction;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The only caller headers that cross to another origin on a redirect. Any other header may be a
 * credential (Authorization, X-A2A-Notification-Token, a webhook signature, an API key): the
 * caller gave it to the origin it named, not to whoever that origin redirects to.
 */
const CROSS_ORIGIN_HEADERS = new Set(['accept', 'accept-language', 'content-language', 'content-type', 'user-agent']);

const keepOnly = (headers: Readonly<Record<string, string>>, keep: (name: string) => boolean): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => keep(name.toLowerCase())));

/**
 * One outbound call to a checked URL. Throws `WebhookError` for refusals, timeouts, network errors
 * and oversize bodies; any HTTP status (other than a followed redirect) is returned, not thrown.
 */
export async function safeFetch(raw: string | URL, init: SafeFetchInit = {}, policy: WebhookPolicy = {}): Promise<SafeFetchResponse> {
  const maxRedirects = policy.maxRedirects ?? DEFAULTS.maxRedirects;
  const deadline = Date.now() + (policy.timeoutMs ?? DEFAULTS.timeoutMs);
  let method = (init.method ?? 'GET').toUpperCase();
  let body = init.body;
  let headers: Readonly<Record<string, string>> = init.headers ?? {};
  let current = typeof raw === 'string' ? raw : raw.href;
  let origin: string | undefined;
  for (let hop = 0; ; hop++) {
    const parsed = parseWebhookUrl(current, policy);
    if (!parsed.ok) throw new WebhookError(WebhookErrorCode.Refused, parsed.reason);
    // Once the chain leaves the origin the caller named, its headers stay behind for good (stricter
    // than fetch, which drops only Authorization): coming back does not bring them back.
    origin ??= parsed.url.origin;
    if (parsed.url.origin !== origin) headers = keepOnly(headers, (name) => CROSS_ORIGIN_HEADERS.has(name));
    const checked = await resolveAndCheck(parsed.url, policy);
    if (!checked.ok) throw new WebhookError(WebhookErrorCode.Refused, checked.reason);
    const response = await requestOnce(checked, method, headers, body, deadline, policy);
    const location = response.headers.location;
    if (!REDIRECTS.has(response.status) || typeof location !== 'string') return response;
    if (hop >= maxRedirects) {
      throw new WebhookError(
        WebhookErrorCode.Redirects,
        maxRedirects === 0
          ? `the ${purposeOf(policy)} answered ${response.status} (redirects are not followed)`
          : `more than ${maxRedirects} redirects`,
      );
    }
    try {
      current = new URL(location, checked.url).href;
    } catch {
      throw new WebhookError(WebhookErrorCode.Redirects, 'a redirect carried a malformed Location');
    }
    // Fetch's rules: 303 (and 301/302 after a POST) turn into a GET without a body.
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
      method = method === 'HEAD' ? 'HEAD' : 'GET';
      body = undefined;
      headers = keepOnly(headers, (name) => name !== 'content-type');
    }
  }
}

function requestOnce(
  target: Extract<AddressCheckResult, { ok: true }>,
  method: string,
  headers: Readonly<Record<string, string>>,
  body: string | Buffer | undefined,
  deadline: number,
  policy: WebhookPolicy,
): Promise<SafeFetchResponse> {
  const maxBytes = policy.maxResponseBytes ?? DEFAULTS.maxResponseBytes;
  const what = purposeOf(policy);
  const remaining = deadline - Date.now();
  if (remaining <= 0) return Promise.reject(new WebhookError(WebhookErrorCode.Timeout, `the ${what} call timed out`));
  const { url } = target;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<SafeFetchResponse>((resolve, reject) => {
    let settled = false;
    const fail = (error: WebhookError): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(error);
    };
    const req = client.request(
      url,
      {
        method,
        headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
        lookup: pinnedLookup(target.address, target.family),
        // No keep-alive pool: a pooled socket would bypass the per-call check.
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) fail(new WebhookError(WebhookErrorCode.TooLarge, `the ${what} response is larger than ${maxBytes} bytes`));
          else chunks.push(chunk);
        });
        res.on('error', (error) => fail(new WebhookError(WebhookErrorCode.Network, `the ${what} response failed: ${error.message}`)));
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), url: url.href });
        });
      },
    );
    const timer = setTimeout(() => fail(new WebhookError(WebhookErrorCode.Timeout, `the ${what} call timed out`)), remaining);
    req.on('error', (error: NodeJS.ErrnoException) =>
      fail(new WebhookError(WebhookErrorCode.Network, `the ${what} call failed: ${error.code ?? error.message}`)),
    );
    req.end(body);
  });
}
