/**
 * The one way `cpctl import` reads a URL (ADR 0276): http(s) only, no credentials in the URL, every
 * address the name resolves to checked before the connection (pinned to the checked address, so a
 * second DNS answer cannot move it), private, loopback and other non-public addresses only with
 * `--allow-private`, link-local, unspecified, multicast and cloud metadata addresses never;
 * redirects are not followed; time and bytes bounded. cpctl talks to the control plane over
 * GraphQL only, so this is its own small guard rather than the node's webhook guard.
 */
import http from 'node:http';
import https from 'node:https';
import { lookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { METADATA_ADDRESSES } from '@cp/capabilities';
import { CpctlError, CpctlErrorCode } from '../cpctl.errors';

export interface GuardedFetchOptions {
  allowPrivate: boolean;
  maxBytes: number;
  timeoutMs: number;
  /** For tests: resolve names without the system resolver. */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
}

export const URL_MAX = 2048;

const METADATA = new Set(METADATA_ADDRESSES.map((a) => ipaddr.parse(a).toNormalizedString()));
const METADATA_NAMES = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'metadata.azure.com']);

function embeddedV4(ip: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (!(ip instanceof ipaddr.IPv6)) return undefined;
  if (ip.isIPv4MappedAddress()) return ip.toIPv4Address();
  const p = ip.parts;
  if (ip.range() === 'rfc6052') return new ipaddr.IPv4([p[6] >> 8, p[6] & 255, p[7] >> 8, p[7] & 255]);
  if (ip.range() === '6to4') return new ipaddr.IPv4([p[1] >> 8, p[1] & 255, p[2] >> 8, p[2] & 255]);
  return undefined;
}

/** Why this address may not be fetched; undefined when it may. */
export function addressProblem(address: string, allowPrivate: boolean): string | undefined {
  if (!ipaddr.isValid(address)) return 'is not an IP address';
  const parsed = ipaddr.parse(address);
  const forms = [parsed, embeddedV4(parsed)].filter((ip) => ip !== undefined);
  for (const ip of forms) {
    const range = ip.range();
    if (range === 'linkLocal' || range === 'unspecified' || range === 'multicast' || range === 'broadcast')
      return `is ${range}, which is never fetched`;
    if (METADATA.has(ip.toNormalizedString())) return 'is a cloud metadata address, which is never fetched';
  }
  const range = forms[forms.length - 1].range();
  if (range !== 'unicast' && !allowPrivate) return `is ${range}: pass --allow-private to import from a private address (local development)`;
  return undefined;
}

/** The URL, or a usage error naming what is wrong with it. */
export function parseImportUrl(raw: string): URL {
  if (raw.length > URL_MAX) throw new CpctlError(CpctlErrorCode.Usage, `the URL is longer than ${URL_MAX} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CpctlError(CpctlErrorCode.Usage, `"${raw.slice(0, 200)}" is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CpctlError(CpctlErrorCode.Usage, `scheme "${url.protocol.replace(/:$/, '')}" is not allowed (http or https only)`);
  if (url.username || url.password) throw new CpctlError(CpctlErrorCode.Usage, 'the URL must not carry credentials');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (METADATA_NAMES.has(host.replace(/\.$/, '')))
    throw new CpctlError(CpctlErrorCode.Usage, `host "${host}" names a cloud metadata service, which is never fetched`);
  if (!ipaddr.isValid(host) && (/^\d+$/.test(host) || /^0x/i.test(host)))
    throw new CpctlError(CpctlErrorCode.Usage, `host "${host}" is a numeric address form: write the address in dotted or IPv6 notation`);
  return url;
}

const systemResolve = async (host: string) => lookup(host, { all: true, verbatim: true });

/** GET `url` through the guard; the body as text. Any failure is a CpctlError naming the URL and why. */
export async function guardedFetch(url: URL, options: GuardedFetchOptions): Promise<string> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  if (ipaddr.isValid(host)) addresses = [{ address: host, family: ipaddr.parse(host).kind() === 'ipv4' ? 4 : 6 }];
  else {
    try {
      addresses = await (options.resolve ?? systemResolve)(host);
    } catch (error) {
      throw new CpctlError(
        CpctlErrorCode.Unreachable,
        `${url.href}: "${host}" does not resolve (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  }
  if (addresses.length === 0) throw new CpctlError(CpctlErrorCode.Unreachable, `${url.href}: "${host}" does not resolve`);
  for (const a of addresses) {
    const problem = addressProblem(a.address, options.allowPrivate);
    if (problem) throw new CpctlError(CpctlErrorCode.Usage, `${url.href}: "${host}" resolves to ${a.address}, which ${problem}`);
  }
  const [{ address, family }] = addresses;
  const pinned = ((_h: string, o: { all?: boolean }, cb: (...args: unknown[]) => void) =>
    o?.all ? cb(null, [{ address, family }]) : cb(null, address, family)) as LookupFunction;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (message: string, code = CpctlErrorCode.Unreachable) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(new CpctlError(code, `${url.href}: ${message}`));
    };
    const req = (url.protocol === 'https:' ? https : http).request(
      url,
      { method: 'GET', headers: { accept: 'application/json' }, lookup: pinned, agent: false },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) return fail(`answered ${status} (redirects are not followed: import the URL it points to)`);
        if (status !== 200) return fail(`answered HTTP ${status}`);
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > options.maxBytes) fail(`the answer is larger than ${options.maxBytes} bytes`, CpctlErrorCode.InvalidFiles);
          else chunks.push(c);
        });
        res.on('error', () => fail('the connection was lost'));
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(Buffer.concat(chunks).toString('utf8'));
        });
      },
    );
    const timer = setTimeout(() => fail(`no complete answer within ${options.timeoutMs} ms`), options.timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) => fail(`cannot fetch (${e.code ?? e.message})`));
    req.end();
  });
}
