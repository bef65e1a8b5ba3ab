/**
 * A2A-Extensions negotiation (seed: negotiate_extensions; A2A 1.0 §4.6): the client lists the
 * URIs it wants in the `A2A-Extensions` request header; declared ones are activated (and echoed
 * in the response header), unknown ones ignored, and a declared required extension the client
 * did not request rejects the request with ExtensionSupportRequiredError.
 */
import type { AgentExtension } from '../types';

export const EXTENSIONS_HEADER = 'A2A-Extensions';

export type NegotiationResult =
  | { ok: true; active: string[]; ignored: string[] }
  | {
      ok: false;
      error: 'ExtensionSupportRequiredError';
      message: string;
      /** The required URIs the request did not activate (error data: `{ required: [...] }`). */
      required: string[];
    };

/** `uri1, uri2` (possibly repeated headers) → distinct trimmed URIs in request order. */
export function parseExtensionsHeader(header: string | readonly string[] | undefined): string[] {
  if (header === undefined) return [];
  const values = typeof header === 'string' ? [header] : header;
  const out: string[] = [];
  for (const value of values) {
    for (const uri of value.split(',')) {
      const u = uri.trim();
      if (u !== '' && !out.includes(u)) out.push(u);
    }
  }
  return out;
}

export function negotiateExtensions(
  header: string | readonly string[] | undefined,
  declared: readonly AgentExtension[],
): NegotiationResult {
  const requested = parseExtensionsHeader(header);
  const known = new Set(declared.map((e) => e.uri));
  const missing = declared
    .filter((e) => e.required === true && !requested.includes(e.uri))
    .map((e) => e.uri)
    .sort();
  if (missing.length > 0) {
    return {
      ok: false,
      error: 'ExtensionSupportRequiredError',
      message: `this agent requires the extension(s) ${missing.join(', ')}: list them in the ${EXTENSIONS_HEADER} request header`,
      required: missing,
    };
  }
  return { ok: true, active: requested.filter((u) => known.has(u)).sort(), ignored: requested.filter((u) => !known.has(u)) };
}

/** The response header value naming the activated extensions (absent when none). */
export function extensionsResponseHeader(active: readonly string[]): string | undefined {
  return active.length > 0 ? active.join(',') : undefined;
}
