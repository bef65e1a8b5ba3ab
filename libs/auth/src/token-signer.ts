import jwt from 'jsonwebtoken';
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
 * Mints HS256 tokens with the shared secret: used by the control plane's token exchange,
 * by `npm start`'s demo tokens and by tests. Deployments with an external IdP mint
 * admin/a2a tokens there and verify them with JWKS.
 */
export class TokenSigner {
  constructor(private readonly secret: string) {}

  sign(options: SignOptions): string {
    const iat = options.issuedAt ?? Math.floor(Date.now() / 1000);
    return jwt.sign({ ...options.claims, token_use: options.use, iat }, this.secret, {
      algorithm: 'HS256',
      subject: options.subject,
      audience: options.audience,
      issuer: options.issuer,
      expiresIn: options.expiresIn,
    });
  }
}
