/**
 * `cpctl card verify <url> [--jwks <url|file>]`: fetches an agent card and verifies its A2A §8.4
 * signatures against a JWKS the user names (option, else CPCTL_JWKS). The JWKS is never taken
 * from the card (a `jku` is ignored): whoever controls a card must not choose the key it is
 * checked with. One exit code per outcome (docs/cpctl.md).
 */
import { readFile } from 'node:fs/promises';
import { CardVerifyCode, pinnedJwks, verifyCardSignature, type VerificationKeys } from '@cp/node-protocol';
import type { CommandContext } from '../context';
import { CpctlError, CpctlErrorCode } from '../cpctl.errors';
import { ExitCode } from '../exit-codes';

const EXIT: Record<CardVerifyCode, ExitCode> = {
  [CardVerifyCode.Unsigned]: ExitCode.CardUnsigned,
  [CardVerifyCode.BadSignature]: ExitCode.CardSignatureInvalid,
  [CardVerifyCode.UnknownKey]: ExitCode.CardUnknownKey,
  [CardVerifyCode.KeysUnavailable]: ExitCode.JwksUnavailable,
  [CardVerifyCode.Malformed]: ExitCode.CardMalformed,
};
const MAX_BYTES = 4 * 1024 * 1024;

/** A verification outcome found before the signatures were looked at (no JWKS, not a card). */
export class CardCheckFailure extends Error {
  constructor(
    readonly code: CardVerifyCode,
    message: string,
  ) {
    super(message);
  }
}

const isUrl = (s: string) => /^https?:\/\//i.test(s);

/** A base URL (no path) means its well-known card. */
function cardUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CpctlError(CpctlErrorCode.Usage, `"${raw}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CpctlError(CpctlErrorCode.Usage, 'the card URL must be http(s)');
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/.well-known/agent-card.json';
  return url;
}

export async function keysFrom(ctx: CommandContext, jwks: string | undefined): Promise<{ keys: VerificationKeys; from: string }> {
  const from = jwks ?? ctx.env.CPCTL_JWKS;
  if (!from) {
    throw new CpctlError(
      CpctlErrorCode.Usage,
      'name the JWKS to verify with: --jwks <url|file> or CPCTL_JWKS (a card never chooses its own key)',
    );
  }
  if (isUrl(from)) return { keys: pinnedJwks(from, { timeoutMs: 10_000 }), from };
  let text: string;
  try {
    text = await readFile(from, 'utf8');
  } catch (error) {
    throw new CardCheckFailure(CardVerifyCode.KeysUnavailable, `cannot read the JWKS file ${from}: ${(error as Error).message}`);
  }
  try {
    const doc = JSON.parse(text) as { keys?: unknown };
    if (!Array.isArray(doc.keys)) throw new Error('no "keys" list');
    return { keys: doc as VerificationKeys, from };
  } catch (error) {
    throw new CardCheckFailure(CardVerifyCode.KeysUnavailable, `the JWKS file ${from} is not a JWKS: ${(error as Error).message}`);
  }
}

async function fetchCard(url: URL): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(10_000), redirect: 'error' });
  } catch (error) {
    const e = error as Error & { cause?: { code?: string } };
    throw new CpctlError(CpctlErrorCode.Unreachable, `cannot fetch ${url.href}: ${e.cause?.code ?? e.message}`);
  }
  if (!response.ok) throw new CpctlError(CpctlErrorCode.Unreachable, `${url.href} answered ${response.status}`);
  const text = await response.text();
  if (text.length > MAX_BYTES) throw new CardCheckFailure(CardVerifyCode.Malformed, `the card is larger than ${MAX_BYTES} bytes`);
  return text;
}

export async function cardVerifyCommand(ctx: CommandContext, raw: string, options: { jwks?: string }): Promise<ExitCode> {
  const r = ctx.reporter;
  const url = cardUrl(raw);
  let outcome: { ok: true; kid: string } | { ok: false; code: CardVerifyCode; reason: string };
  let jwksFrom: string | undefined = options.jwks ?? ctx.env.CPCTL_JWKS;
  let name: unknown;
  try {
    const { keys, from } = await keysFrom(ctx, options.jwks);
    jwksFrom = from;
    const text = await r.progress(`fetching ${url.href}`, () => fetchCard(url));
    try {
      name = (JSON.parse(text) as { name?: unknown }).name;
    } catch {
      name = undefined;
    }
    outcome = await verifyCardSignature(text, keys);
  } catch (error) {
    if (!(error instanceof CardCheckFailure)) throw error;
    outcome = { ok: false, code: error.code, reason: error.message };
  }
  const exitCode = outcome.ok ? ExitCode.Ok : EXIT[outcome.code];
  r.result({
    command: 'card verify',
    ok: outcome.ok,
    exitCode,
    url: url.href,
    jwks: jwksFrom,
    ...(outcome.ok ? { kid: outcome.kid } : { code: outcome.code, reason: outcome.reason }),
  });
  const label = typeof name === 'string' ? `"${name.slice(0, 80)}" (${url.href})` : url.href;
  if (outcome.ok) r.line(`${r.mark('ok')}the card ${label} is signed by key "${outcome.kid}" of ${jwksFrom}`);
  else r.problem(`${r.c.red('not verified:')} ${label}: ${outcome.reason} (${outcome.code})`);
  return exitCode;
}
