/**
 * A2A-Version (A2A 1.0 §3.6): clients send `A2A-Version: 1.0` (or `?A2A-Version=1.0`). A missing
 * or empty value means 0.3. This node speaks 1.0 only (no 0.3 compat layer), so anything else
 * answers VersionNotSupportedError naming what it supports.
 */
import { A2AError, A2AErrorName } from './a2a-errors';

export const A2A_VERSION_HEADER = 'a2a-version';
export const SUPPORTED_VERSIONS = ['1.0'] as const;

export function checkVersion(header: string | string[] | undefined, query: unknown): void {
  const raw = (Array.isArray(header) ? header[0] : header) ?? (typeof query === 'string' ? query : undefined);
  const value = raw?.trim() ?? '';
  const version = value === '' ? '0.3' : value;
  // Only Major.Minor is on the wire; tolerate a patch component from older clients.
  if (/^1\.0(\.\d+)?$/.test(version)) return;
  throw new A2AError(
    A2AErrorName.VersionNotSupported,
    `A2A version ${version}${value === '' ? ' (no A2A-Version header)' : ''} is not supported; supported: ${SUPPORTED_VERSIONS.join(', ')}`,
    {
      requested: version,
      supported: SUPPORTED_VERSIONS.join(','),
    },
  );
}
