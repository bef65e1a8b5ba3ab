import { Injectable } from '@nestjs/common';
import { AuthError, AuthErrorCode, bearerToken, controlPlaneVerifier, type JwtVerifier, type NodePrincipal } from '@cp/auth';
import { InjectConfig, type AppConfig } from '@cp/common';

const MEMO_LIMIT = 10_000;
const MEMO_MAX_MS = 60_000;

/**
 * Verifies node tokens. A verified token is remembered (by its exact text, until it expires or
 * for a minute at most), so a fleet revalidating every few seconds does not pay a signature
 * check per request: the bundle/304 path must run near bare-Fastify speed. Every /node/v1 entry
 * point (sync, usage, token exchange, clarifications) authenticates here; failures are AuthErrors,
 * which nodeApiAnswer answers with 401 (403 for a valid token of another kind).
 */
@Injectable()
export class NodeAuthenticator {
  private readonly verifier: JwtVerifier;
  private readonly memo = new Map<string, { principal: NodePrincipal; until: number }>();

  constructor(@InjectConfig() config: AppConfig) {
    this.verifier = controlPlaneVerifier(config);
  }

  async authenticate(authorization: string | string[] | undefined): Promise<NodePrincipal> {
    const token = bearerToken(authorization);
    if (!token) throw new AuthError(AuthErrorCode.Missing, 'a node token is required (Authorization: Bearer <token>)');
    const now = Date.now();
    const hit = this.memo.get(token);
    if (hit && hit.until > now) return hit.principal;
    const principal = await this.verifier.verify(token, 'node');
    if (this.memo.size >= MEMO_LIMIT) this.memo.clear();
    this.memo.set(token, { principal, until: Math.min(now + MEMO_MAX_MS, expiryMs(token) ?? now) });
    return principal;
  }
}

function expiryMs(token: string): number | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof payload.exp === 'number' ? payload.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
