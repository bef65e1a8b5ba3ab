/**
 * `cpctl import --from-card <url> <dir> --owner <team>` (issue 28 item 7, issue 33 item 5, ADR
 * 0276): reads an existing A2A agent's card, or an AI Catalog (every A2A card entry), through the
 * guarded fetch (public addresses only unless --allow-private), verifies the card's signatures and
 * the catalog's signature when present against the JWKS the user names (a bad or unverifiable one
 * refuses the import unless --no-verify), and writes one manifest file per skill: a preview,
 * extended capability with its `upstream` filled in, for review, then `cpctl plan` / `apply`.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import YAML from 'yaml';
import {
  A2A_AGENT_CARD_MEDIA_TYPE,
  AI_CATALOG_MEDIA_TYPE,
  CardVerifyCode,
  MAX_CATALOG_DEPTH,
  checkAiCatalog,
  verifyCardSignature,
  verifyCatalogSignature,
  type VerificationKeys,
} from '@cp/node-protocol';
import type { CommandContext } from '../context';
import { CpctlError, CpctlErrorCode } from '../cpctl.errors';
import { ExitCode } from '../exit-codes';
import { MANIFEST_EXTENSIONS } from '../files/manifest-dir';
import { cardToManifests, jsonDepth, type CardImport } from '../import/card-to-manifests';
import { guardedFetch, parseImportUrl, type GuardedFetchOptions } from '../import/guarded-fetch';
import { CardCheckFailure, keysFrom } from './card-verify.command';

export interface ImportOptions {
  owner?: string;
  allowPrivate?: boolean;
  /** commander's --no-verify: false when given. */
  verify?: boolean;
  jwks?: string;
  replace?: boolean;
}

const MAX_BYTES = 1024 * 1024;
const MAX_DEPTH = 64;
const MAX_CARDS = 50;
const TIMEOUT_MS = 10_000;
const OWNER = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

const VERIFY_EXIT: Record<CardVerifyCode, ExitCode> = {
  [CardVerifyCode.Unsigned]: ExitCode.CardUnsigned,
  [CardVerifyCode.BadSignature]: ExitCode.CardSignatureInvalid,
  [CardVerifyCode.UnknownKey]: ExitCode.CardUnknownKey,
  [CardVerifyCode.KeysUnavailable]: ExitCode.JwksUnavailable,
  [CardVerifyCode.Malformed]: ExitCode.CardMalformed,
};

/** A refusal with its own exit code (signature outcomes: 12–16, 18). */
class ImportRefused extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
  }
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
/** No signature at all (absent, or an empty list as some SDKs serialise it); anything else is verified, malformed ones refused. */
const unsigned = (v: unknown) => v === undefined || v === null || (Array.isArray(v) && v.length === 0);

interface Fetched {
  url: string;
  text: string;
  doc: unknown;
}

class Importer {
  private keys?: Promise<{ keys: VerificationKeys; from: string }>;
  readonly verified: { what: string; outcome: string }[] = [];
  private fetches = 0;

  constructor(
    private readonly ctx: CommandContext,
    private readonly options: ImportOptions,
    private readonly fetchOptions: GuardedFetchOptions,
  ) {}

  async fetch(url: URL): Promise<Fetched> {
    if (++this.fetches > MAX_CARDS + 1) throw new CpctlError(CpctlErrorCode.Usage, `an import reads at most ${MAX_CARDS} cards`);
    const text = await guardedFetch(url, this.fetchOptions);
    if (jsonDepth(text) > MAX_DEPTH)
      throw new CpctlError(CpctlErrorCode.InvalidFiles, `${url.href}: the JSON is nested deeper than ${MAX_DEPTH} levels`);
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      throw new CpctlError(CpctlErrorCode.InvalidFiles, `${url.href}: the answer is not JSON`);
    }
    return { url: url.href, text, doc };
  }

  private async keysFor(what: string): Promise<VerificationKeys> {
    this.keys ??= keysFrom(this.ctx, this.options.jwks).catch((error: unknown) => {
      if (error instanceof CardCheckFailure) throw new ImportRefused(VERIFY_EXIT[error.code], error.message);
      throw new ImportRefused(
        ExitCode.Usage,
        `${what} is signed: name the JWKS to verify it with (--jwks <url|file> or CPCTL_JWKS), or pass --no-verify to import it unverified`,
      );
    });
    return (await this.keys).keys;
  }

  /** A card's signatures, when it carries any (A2A §8.4). */
  async verifyCard(card: Fetched): Promise<void> {
    if (!isObject(card.doc) || unsigned(card.doc.signatures)) {
      this.verified.push({ what: card.url, outcome: 'unsigned' });
      return;
    }
    if (this.options.verify === false) {
      this.verified.push({ what: card.url, outcome: 'signed, NOT verified (--no-verify)' });
      return;
    }
    const v = await verifyCardSignature(card.text, await this.keysFor(`the card ${card.url}`));
    if (!v.ok)
      throw new ImportRefused(
        VERIFY_EXIT[v.code],
        `the card ${card.url} carries a signature that does not verify: ${v.reason} (${v.code}); nothing was written (--no-verify imports it anyway)`,
      );
    this.verified.push({ what: card.url, outcome: `verified (key "${v.kid}")` });
  }

  async verifyCatalog(catalog: Fetched | { url: string; doc: unknown }): Promise<void> {
    const metadata = isObject(catalog.doc) ? catalog.doc.metadata : undefined;
    if (!isObject(metadata) || unsigned(metadata.signature)) {
      this.verified.push({ what: `catalog ${catalog.url}`, outcome: 'unsigned' });
      return;
    }
    if (this.options.verify === false) {
      this.verified.push({ what: `catalog ${catalog.url}`, outcome: 'signed, NOT verified (--no-verify)' });
      return;
    }
    const v = await verifyCatalogSignature(catalog.doc, await this.keysFor(`the catalog ${catalog.url}`));
    if (!v.ok)
      throw new ImportRefused(
        VERIFY_EXIT[v.code],
        `the catalog ${catalog.url} carries a signature that does not verify: ${v.reason} (${v.code}); nothing was written (--no-verify imports it anyway)`,
      );
    this.verified.push({ what: `catalog ${catalog.url}`, outcome: `verified (key "${v.kid}")` });
  }

  /** The A2A cards a catalog links, nested catalogs followed (inline and by URL) to the spec's depth. */
  async cardsOfCatalog(catalog: { url: string; doc: unknown }, depth: number, seen: Set<string>, out: Fetched[]): Promise<void> {
    const issues = checkAiCatalog(catalog.doc);
    if (issues.length > 0)
      throw new ImportRefused(ExitCode.CatalogInvalid, `${catalog.url} is not a valid AI Catalog: ${issues[0].path}: ${issues[0].message}`);
    await this.verifyCatalog(catalog);
    if (depth > MAX_CATALOG_DEPTH) return;
    for (const e of (catalog.doc as { entries: Json[] }).entries) {
      if (e.mediaType === AI_CATALOG_MEDIA_TYPE) {
        if (e.data !== undefined)
          await this.cardsOfCatalog({ url: `${catalog.url} (${String(e.identifier)})`, doc: e.data }, depth + 1, seen, out);
        else if (typeof e.url === 'string' && !seen.has(e.url)) {
          seen.add(e.url);
          await this.cardsOfCatalog(await this.fetch(parseImportUrl(new URL(e.url, catalog.url.split(' ')[0]).href)), depth + 1, seen, out);
        }
      } else if (e.mediaType === A2A_AGENT_CARD_MEDIA_TYPE && typeof e.url === 'string') {
        const href = parseImportUrl(new URL(e.url, catalog.url.split(' ')[0]).href);
        if (seen.has(href.href)) continue;
        seen.add(href.href);
        if (out.length >= MAX_CARDS) throw new CpctlError(CpctlErrorCode.Usage, `the catalog links more than ${MAX_CARDS} agent cards`);
        const card = await this.fetch(href);
        await this.verifyCard(card);
        out.push(card);
      }
    }
  }
}

async function existingFiles(dir: string): Promise<Set<string>> {
  try {
    return new Set((await readdir(dir)).filter((f) => MANIFEST_EXTENSIONS.includes(extname(f))));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Set();
    throw error;
  }
}

export async function importCommand(ctx: CommandContext, raw: string, dir: string, options: ImportOptions): Promise<ExitCode> {
  const r = ctx.reporter;
  if (!options.owner || !OWNER.test(options.owner) || options.owner.length > 63)
    throw new CpctlError(CpctlErrorCode.Usage, '--owner <team> is required: the team slug that owns the imported capabilities');
  const url = parseImportUrl(raw);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/.well-known/agent-card.json';
  const importer = new Importer(ctx, options, { allowPrivate: options.allowPrivate === true, maxBytes: MAX_BYTES, timeoutMs: TIMEOUT_MS });
  const imports: CardImport[] = [];
  const problems: string[] = [];
  try {
    const first = await r.progress(`fetching ${url.href}`, () => importer.fetch(url));
    let cards: Fetched[];
    if (isObject(first.doc) && Array.isArray(first.doc.entries) && first.doc.skills === undefined) {
      cards = [];
      await importer.cardsOfCatalog(first, 1, new Set([first.url]), cards);
    } else {
      await importer.verifyCard(first);
      cards = [first];
    }
    const taken = new Set<string>();
    for (const card of cards) {
      const result = cardToManifests(card.doc, { owner: options.owner, source: card.url, taken });
      if ('problem' in result) problems.push(result.problem);
      else imports.push(result);
    }
  } catch (error) {
    if (!(error instanceof ImportRefused)) throw error;
    r.problem(`${r.c.red('not imported:')} ${error.message}`);
    r.result({ command: 'import', ok: false, exitCode: error.exitCode, url: url.href, reason: error.message, verified: importer.verified });
    return error.exitCode;
  }
  const capabilities = imports.flatMap((i) => i.capabilities);
  if (capabilities.length === 0) {
    const why =
      problems[0] ?? imports.flatMap((i) => i.skipped.map((s) => `skill "${s.skill}": ${s.reason}`))[0] ?? 'the card lists no skills';
    throw new CpctlError(CpctlErrorCode.InvalidFiles, `nothing to import from ${url.href}: ${why}`);
  }
  const existing = await existingFiles(dir);
  const clashes = capabilities.map((c) => `${c.capabilityId}.yaml`).filter((f) => existing.has(f));
  if (clashes.length > 0 && !options.replace)
    throw new CpctlError(
      CpctlErrorCode.Usage,
      `${dir} already holds ${clashes.slice(0, 3).join(', ')}${clashes.length > 3 ? ', …' : ''}: pass --replace to overwrite them`,
    );
  await mkdir(dir, { recursive: true });
  const files: string[] = [];
  for (const c of capabilities) {
    const file = join(dir, `${c.capabilityId}.yaml`);
    const header = `# Imported by cpctl import --from-card from ${c.document.upstream?.card ?? url.href} (skill "${c.skill.replace(/\s+/g, ' ')}"): review, then cpctl plan / apply.\n`;
    await writeFile(file, header + YAML.stringify(c.document, { lineWidth: 0 }));
    files.push(file);
  }
  for (const v of importer.verified) r.line(`${r.mark(v.outcome.startsWith('verified') ? 'ok' : 'warn')}${v.what}: ${v.outcome}`);
  for (const i of imports) {
    r.line(
      `${r.mark('ok')}"${i.agent}" (${i.upstream.binding}, A2A ${i.upstream.version} at ${i.upstream.url}): ${i.capabilities.length} capability(ies)`,
    );
    for (const n of i.renamed) r.line(`    skill "${n.skill}" → capability ${n.capabilityId}`);
    for (const s of i.skipped) r.problem(`    ${r.c.yellow('skipped')} skill "${s.skill}": ${s.reason}`);
  }
  for (const p of problems) r.problem(`${r.c.yellow('skipped:')} ${p}`);
  r.line(`wrote ${files.length} manifest(s) to ${dir} (state preview, visibility extended, owner ${options.owner})`);
  r.line(`next: review them, then  cpctl plan ${dir} --agent <agent>  and  cpctl apply ${dir} --agent <agent>`);
  r.result({
    command: 'import',
    ok: true,
    exitCode: ExitCode.Ok,
    url: url.href,
    files,
    verified: importer.verified,
    agents: imports.map((i) => ({
      name: i.agent,
      upstream: i.upstream,
      capabilities: i.capabilities.map((c) => ({ id: c.capabilityId, skill: c.skill })),
      renamed: i.renamed,
      skipped: i.skipped,
    })),
    problems,
  });
  return ExitCode.Ok;
}
