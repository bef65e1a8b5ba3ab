import jwt from 'jsonwebtoken';
import type { KeyRing } from './key-ring';
import type { TokenUse } from './principals';

export interface SignOptions {
  use: TokenUse;
  subject: string;
  audience: string;
  issuer: string;
  /** Seconds after issuedAt. */
  expiresIn: number;
  /** Epoch seconds (default: now); exp = issuedAt + expiresIn. */
  issuedAt?: number;
  claims?: Record<string, unknown>;
}

/**
 * Mints tokens. With the shared secret (HS256): `npm start`'s demo tokens, development node
 * tokens and tests. With the key ring (ES256, `kid` of the active key): tool tokens from the
 * control plane's token exchange (ADR 0130), so a tool that verifies them cannot mint them.
 * Deployments with an external IdP mint admin/a2a tokens there and verify them with JWKS.
 */
export class TokenSigner {
  constructor(private readonly key: string | { keyRing: KeyRing }) {}

  sign(options: SignOptions): string {
    const iat = options.issuedAt ?? Math.floor(Date.now() / 1000);
    const common = { subject: options.subject, audience: options.audience, issuer: options.issuer, expiresIn: options.expiresIn };
    const payload = { ...options.claims, token_use: options.use, iat };
    if (typeof this.key === 'string') return jwt.sign(payload, this.key, { ...common, algorithm: 'HS256' });
    const active = this.key.keyRing.active();
    return jwt.sign(payload, active.privateKey, { ...common, algorithm: 'ES256', keyid: active.kid });
  }
}
