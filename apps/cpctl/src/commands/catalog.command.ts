/**
 * `cpctl catalog verify <url> [--jwks <url|file>]` and `cpctl export --ai-catalog <file>`
 * (docs/catalog.md). verify: the document against the specification's MUST rules, its
 * catalog-level signature, then every linked A2A card's signatures, all against the JWKS the user
 * names (never one the catalog or a card points to). Nested catalogs are followed inline and by
 * URL to the spec's recommended depth of 4, each URL once.
 */
import { writeFile } from 'node:fs/promises';
import {
  A2A_AGENT_CARD_MEDIA_TYPE,
  AI_CATALOG_MEDIA_TYPE,
  AI_CATALOG_PATH,
  CardVerifyCode,
  MAX_CATALOG_DEPTH,
  checkAiCatalog,
  verifyCardSignature,
  verifyCatalogSignature,
  type VerificationKeys,
} from '@cp/node-protocol';
import { clientFor, type CommandContext } from '../context';
import { CpctlError, CpctlErrorCode } from '../cpctl.errors';
import { ExitCode } from '../exit-codes';
import { CardCheckFailure, keysFrom } from './card-verify.command';

const MAX_BYTES = 4 * 1024 * 1024;
const EXIT: Record<CardVerifyCode, ExitCode> = {
  [CardVerifyCode.Unsigned]: ExitCode.CardUnsigned,
  [CardVerifyCode.BadSignature]: ExitCode.CardSignatureInvalid,
  [CardVerifyCode.UnknownKey]: ExitCode.CardUnknownKey,
  [CardVerifyCode.KeysUnavailable]: ExitCode.JwksUnavailable,
  [CardVerifyCode.Malformed]: ExitCode.CardMalformed,
};

function catalogUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CpctlError(CpctlErrorCode.Usage, `"${raw}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CpctlError(CpctlErrorCode.Usage, 'the catalog URL must be http(s)');
  if (url.pathname === '/' || url.pathname === '') url.pathname = AI_CATALOG_PATH;
  return url;
}

async function fetchText(url: URL, token: string | undefined): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { accept: `${AI_CATALOG_MEDIA_TYPE}, application/json`, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      signal: AbortSignal.timeout(10_000),
      redirect: 'error',
    });
  } catch (error) {
    const e = error as Error & { cause?: { code?: string } };
    throw new CpctlError(CpctlErrorCode.Unreachable, `cannot fetch ${url.href}: ${e.cause?.code ?? e.message}`);
  }
  if (!response.ok) throw new CpctlError(CpctlErrorCode.Unreachable, `${url.href} answered ${response.status}`);
  const text = await response.text();
  if (text.length > MAX_BYTES) throw new CpctlError(CpctlErrorCode.Unreachable, `${url.href} is larger than ${MAX_BYTES} bytes`);
  return text;
}

interface Finding {
  what: string;
  ok: boolean;
  code?: string;
  reason?: string;
  kid?: string;
}

type Entry = { identifier?: unknown; mediaType?: unknown; url?: unknown; data?: unknown };

/** Walks a catalog's entries: cards verified, nested catalogs followed (inline and by URL). */
async function walk(doc: unknown, depth: number, seen: Set<string>, keys: VerificationKeys, token: string | undefined, out: Finding[]) {
  const entries = (doc as { entries?: unknown }).entries;
  if (!Array.isArray(entries) || depth > MAX_CATALOG_DEPTH) return;
  for (const e of entries as Entry[]) {
    const id = typeof e.identifier === 'string' ? e.identifier : '(no identifier)';
    if (e.mediaType === AI_CATALOG_MEDIA_TYPE) {
      if (e.data !== undefined) await walk(e.data, depth + 1, seen, keys, token, out);
      else if (typeof e.url === 'string' && !seen.has(e.url)) {
        seen.add(e.url);
        const nested = JSON.parse(await fetchText(new URL(e.url), token)) as unknown;
        const issues = checkAiCatalog(nested);
        out.push({
          what: `catalog ${e.url}`,
          ok: issues.length === 0,
          ...(issues.length ? { code: 'INVALID', reason: issues[0].message } : {}),
        });
        await walk(nested, depth + 1, seen, keys, token, out);
      }
    } else if (e.mediaType === A2A_AGENT_CARD_MEDIA_TYPE && typeof e.url === 'string' && !seen.has(e.url)) {
      seen.add(e.url);
      const v = await verifyCardSignature(await fetchText(new URL(e.url), undefined), keys);
      out.push({ what: `card of ${id} (${e.url})`, ...(v.ok ? { ok: true, kid: v.kid } : { ok: false, code: v.code, reason: v.reason }) });
    }
  }
}

export async function catalogVerifyCommand(ctx: CommandContext, raw: string, options: { jwks?: string }): Promise<ExitCode> {
  const r = ctx.reporter;
  const url = catalogUrl(raw);
  const token = ctx.env.CPCTL_TOKEN || undefined;
  let keys: VerificationKeys;
  let from: string;
  try {
    ({ keys, from } = await keysFrom(ctx, options.jwks));
  } catch (error) {
    if (!(error instanceof CardCheckFailure)) throw error;
    r.problem(`${r.c.red('not verified:')} ${error.message} (${error.code})`);
    r.result({ command: 'catalog verify', ok: false, exitCode: EXIT[error.code], url: url.href, code: error.code, reason: error.message });
    return EXIT[error.code];
  }
  const text = await r.progress(`fetching ${url.href}`, () => fetchText(url, token));
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    doc = undefined;
  }
  const issues = checkAiCatalog(doc);
  const findings: Finding[] = [];
  let exitCode = ExitCode.Ok;
  if (issues.length > 0) {
    exitCode = ExitCode.CatalogInvalid;
    for (const i of issues.slice(0, 20)) r.problem(`${r.c.red('invalid:')} ${i.path}: ${i.message}`);
  } else {
    const signature = await verifyCatalogSignature(doc, keys);
    findings.push({
      what: `catalog ${url.href}`,
      ...(signature.ok ? { ok: true, kid: signature.kid } : { ok: false, code: signature.code, reason: signature.reason }),
    });
    if (!signature.ok) exitCode = EXIT[signature.code];
    await walk(doc, 1, new Set([url.href]), keys, token, findings);
    const failed = findings.find((f) => !f.ok);
    if (exitCode === ExitCode.Ok && failed) exitCode = EXIT[failed.code as CardVerifyCode] ?? ExitCode.CatalogInvalid;
    for (const f of findings) {
      if (f.ok) r.line(`${r.mark('ok')}${f.what} is signed by key "${f.kid}" of ${from}`);
      else r.problem(`${r.c.red('not verified:')} ${f.what}: ${f.reason} (${f.code})`);
    }
  }
  r.result({ command: 'catalog verify', ok: exitCode === ExitCode.Ok, exitCode, url: url.href, jwks: from, issues, findings });
  return exitCode;
}

/** The control plane's catalog (as CPCTL_TOKEN's caller sees it, signed), written unchanged to a file. */
export async function exportAiCatalogCommand(ctx: CommandContext, file: string): Promise<ExitCode> {
  const r = ctx.reporter;
  const base = clientFor(ctx).url;
  const url = new URL(AI_CATALOG_PATH, base);
  const text = await r.progress(`fetching ${url.href}`, () => fetchText(url, ctx.env.CPCTL_TOKEN || undefined));
  let issues;
  try {
    issues = checkAiCatalog(JSON.parse(text));
  } catch {
    issues = [{ path: '$', message: 'not JSON' }];
  }
  if (issues.length > 0) {
    r.problem(`${r.c.red('not exported:')} ${url.href} is not an AI Catalog: ${issues[0].path}: ${issues[0].message}`);
    r.result({ command: 'export', ok: false, exitCode: ExitCode.CatalogInvalid, url: url.href, issues });
    return ExitCode.CatalogInvalid;
  }
  await writeFile(file, text);
  const entries = (JSON.parse(text) as { entries: unknown[] }).entries.length;
  r.line(`${r.mark('ok')}wrote the AI Catalog of ${url.origin} (${entries} nested catalog(s)) to ${file}`);
  r.result({ command: 'export', ok: true, exitCode: ExitCode.Ok, url: url.href, file });
  return ExitCode.Ok;
}
