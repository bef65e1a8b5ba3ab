import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-jwt';
import { bearerToken, type AdminPrincipal, type JwtVerifier, type VerifiedTokens } from '@cp/auth';
import { ADMIN_JWT_VERIFIER, ADMIN_VERIFIED_TOKENS } from './admin-auth.tokens';

export const ADMIN_JWT_STRATEGY = 'admin-jwt';

/**
 * passport-jwt strategy for admin tokens. Every rule comes from the shared JwtVerifier: the key
 * (chosen by the algorithm, never the reverse: no `none`, no algorithm confusion), the accepted
 * algorithms, issuer, audience and clock tolerance, and the claims → principal mapping (which
 * refuses node/a2a/tool tokens). passport-jwt only extracts the token and runs jsonwebtoken. A token
 * that passed all of it is remembered for AdminGuard (ADR 0342).
 */
type HeadersOnly = { headers: Record<string, string | string[] | undefined> };

@Injectable()
export class AdminJwtStrategy extends PassportStrategy(Strategy, ADMIN_JWT_STRATEGY) {
  constructor(
    @Inject(ADMIN_JWT_VERIFIER) private readonly verifier: JwtVerifier,
    @Inject(ADMIN_VERIFIED_TOKENS) private readonly verified: VerifiedTokens<AdminPrincipal>,
  ) {
    super({
      passReqToCallback: true,
      jwtFromRequest: (req: HeadersOnly) => bearerToken(req.headers.authorization) ?? null,
      secretOrKeyProvider: (_req: unknown, rawJwtToken: string, done: (err: unknown, key?: string | Buffer) => void) => {
        verifier.keyFor(rawJwtToken).then(
          (key) => done(null, key as string | Buffer),
          (error: unknown) => done(error),
        );
      },
      jsonWebTokenOptions: verifier.jsonWebTokenOptions(),
      ...verifier.jsonWebTokenOptions(),
    });
  }

  validate(req: HeadersOnly, claims: Record<string, unknown>): AdminPrincipal {
    // Frozen: a remembered principal is every later request's with the same token.
    const principal = this.verifier.principalFrom(claims, 'admin');
    Object.freeze(principal.roles);
    Object.freeze(principal.teams);
    Object.freeze(principal);
    // Verified in full (signature, expiry, issuer, audience, use, lifetime): remembered until its exp.
    const token = bearerToken(req.headers.authorization);
    if (token) this.verified.remember(token, principal, claims.exp as number);
    return principal;
  }
}
