/**
 * The AI Catalog specification's MUST rules as a check (Agent-Card/ai-catalog, specification
 * text: top-level structure, Host Info, Catalog Entry, Publisher, Multi-Version Entries, Trust
 * Manifest binding, Metadata key naming, specVersion format, nested depth). Used by cpctl on what
 * it fetches and by the tests on every catalog the product serves. Never throws.
 */
import { AI_CATALOG_MEDIA_TYPE } from './ai-catalog';

export interface CatalogIssue {
  path: string;
  message: string;
}

/** The spec RECOMMENDS a nesting depth limit of 4 for clients; we check inline catalogs to it. */
export const MAX_CATALOG_DEPTH = 4;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function requireString(o: Record<string, unknown>, key: string, path: string, out: CatalogIssue[], required: boolean): void {
  if (!(key in o)) {
    if (required) out.push({ path: `${path}.${key}`, message: `"${key}" is required` });
    return;
  }
  if (typeof o[key] !== 'string') out.push({ path: `${path}.${key}`, message: `"${key}" must be a string` });
  else if (required && o[key].length === 0) out.push({ path: `${path}.${key}`, message: `"${key}" must not be empty` });
}

function checkMetadata(v: unknown, path: string, out: CatalogIssue[]): void {
  if (v === undefined) return;
  if (!isObject(v)) {
    out.push({ path, message: '"metadata" must be an object' });
    return;
  }
  if (Object.keys(v).some((k) => k.length === 0)) out.push({ path, message: 'metadata keys must be non-empty strings' });
}

function checkHost(v: unknown, path: string, out: CatalogIssue[]): void {
  if (!isObject(v)) {
    out.push({ path, message: '"host" must be an object' });
    return;
  }
  requireString(v, 'displayName', path, out, true);
  for (const k of ['identifier', 'documentationUrl', 'logoUrl']) requireString(v, k, path, out, false);
}

function checkEntry(e: unknown, path: string, depth: number, out: CatalogIssue[]): void {
  if (!isObject(e)) {
    out.push({ path, message: 'an entry must be an object' });
    return;
  }
  for (const k of ['identifier', 'displayName', 'mediaType']) requireString(e, k, path, out, true);
  for (const k of ['description', 'version', 'url']) requireString(e, k, path, out, false);
  const hasUrl = 'url' in e;
  const hasData = 'data' in e;
  if (hasUrl === hasData) out.push({ path, message: 'an entry must contain exactly one of "url" and "data"' });
  if ('tags' in e && !(Array.isArray(e.tags) && e.tags.every((t) => typeof t === 'string')))
    out.push({ path: `${path}.tags`, message: '"tags" must be an array of strings' });
  if ('updatedAt' in e && !(typeof e.updatedAt === 'string' && RFC3339.test(e.updatedAt)))
    out.push({ path: `${path}.updatedAt`, message: '"updatedAt" must be an RFC 3339 timestamp' });
  if ('publisher' in e) {
    if (!isObject(e.publisher)) out.push({ path: `${path}.publisher`, message: '"publisher" must be an object' });
    else for (const k of ['identifier', 'displayName']) requireString(e.publisher, k, `${path}.publisher`, out, true);
  }
  if ('trustManifest' in e) {
    const t = e.trustManifest;
    if (!isObject(t) || typeof t.identity !== 'string')
      out.push({ path: `${path}.trustManifest`, message: 'a Trust Manifest must have a string "identity"' });
    else if (t.identity !== e.identifier)
      out.push({ path: `${path}.trustManifest.identity`, message: 'a Trust Manifest\'s "identity" must match the entry\'s "identifier"' });
  }
  checkMetadata(e.metadata, `${path}.metadata`, out);
  if (hasData && e.mediaType === AI_CATALOG_MEDIA_TYPE) checkCatalogAt(e.data, `${path}.data`, depth + 1, out);
}

function checkCatalogAt(doc: unknown, path: string, depth: number, out: CatalogIssue[]): void {
  if (depth > MAX_CATALOG_DEPTH) {
    out.push({ path, message: `nested deeper than ${MAX_CATALOG_DEPTH} catalogs` });
    return;
  }
  if (!isObject(doc)) {
    out.push({ path, message: 'an AI Catalog must be a JSON object' });
    return;
  }
  if (typeof doc.specVersion !== 'string' || !/^(0|[1-9]\d*)\.(0|[1-9]\d*)$/.test(doc.specVersion))
    out.push({ path: `${path}.specVersion`, message: '"specVersion" must be a "Major.Minor" string' });
  if ('host' in doc) checkHost(doc.host, `${path}.host`, out);
  checkMetadata(doc.metadata, `${path}.metadata`, out);
  if (!Array.isArray(doc.entries)) {
    out.push({ path: `${path}.entries`, message: '"entries" must be an array' });
    return;
  }
  const seen = new Set<string>();
  doc.entries.forEach((e: unknown, i) => {
    const at = `${path}.entries[${i}]`;
    checkEntry(e, at, depth, out);
    if (!isObject(e) || typeof e.identifier !== 'string') return;
    // identifier alone is unique without a version; identifier + version with one.
    const key = typeof e.version === 'string' ? `${e.identifier}\u0000${e.version}` : e.identifier;
    if (seen.has(key))
      out.push({ path: `${at}.identifier`, message: `"${e.identifier}" appears twice (identifier and version must be unique)` });
    seen.add(key);
  });
}

/** Every MUST rule the document breaks ([] = conformant). */
export function checkAiCatalog(doc: unknown): CatalogIssue[] {
  const out: CatalogIssue[] = [];
  checkCatalogAt(doc, '$', 1, out);
  return out;
}
