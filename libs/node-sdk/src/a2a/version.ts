/**
 * A2A-Version (A2A 1.0 §3.6): clients send `A2A-Version: 1.0` (or `?A2A-Version=1.0`). A missing
 * or empty value means 0.3. The node always serves 1.0; it serves 0.3 on a binding when the card
 * lists a 0.3 interface for it (the agent's `protocolVersions` setting, ADR 0160). Anything else
 * answers VersionNotSupportedError naming what it supports, before the method is looked up.
 */
import { A2AError, A2AErrorName } from './a2a-errors';

export const A2A_VERSION_HEADER = 'a2a-version';
export const SUPPORTED_VERSIONS = ['1.0', '0.3'] as const;
export type ProtocolVersion = (typeof SUPPORTED_VERSIONS)[number];

/** The version a request asks for, as sent (a missing or empty value is "0.3"). */
export function requestedVersion(header: string | string[] | undefined, query: unknown): string {
  const raw = (Array.isArray(header) ? header[0] : header) ?? (typeof query === 'string' ? query : undefined);
  const value = raw?.trim() ?? '';
  return value === '' ? '0.3' : value;
}

/** The served version the request speaks, or VersionNotSupportedError. Tolerates a patch component (0.3.0, 1.0.1). */
export function negotiateVersion(
  header: string | string[] | undefined,
  query: unknown,
  served: ReadonlySet<ProtocolVersion>,
): ProtocolVersion {
  const version = requestedVersion(header, query);
  const normalized = /^1\.0(\.\d+)?$/.test(version) ? '1.0' : /^0\.3(\.\d+)?$/.test(version) ? '0.3' : undefined;
  if (normalized && served.has(normalized)) return normalized;
  const list = SUPPORTED_VERSIONS.filter((v) => served.has(v));
  const sent = (Array.isArray(header) ? header[0] : header)?.trim() || (typeof query === 'string' ? query.trim() : '');
  const absent = sent === '' ? ' (no A2A-Version header)' : '';
  throw new A2AError(
    A2AErrorName.VersionNotSupported,
    `A2A version ${version}${absent} is not supported here; supported: ${list.join(', ')}`,
    { requested: version, supported: list.join(',') },
  );
}

/** 1.0 only: the answer on a binding that serves no 0.3 (kept for callers of the earlier API). */
export function checkVersion(header: string | string[] | undefined, query: unknown): void {
  negotiateVersion(header, query, new Set(['1.0']));
}
