import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-jwt';
import { bearerToken, type AdminPrincipal, type JwtVerifier } from '@cp/auth';
import { ADMIN_JWT_VERIFIER } from './admin-auth.tokens';

export const ADMIN_JWT_STRATEGY = 'admin-jwt';

/**
 * passport-jwt strategy for admin tokens. Every rule comes from the shared JwtVerifier: the key
 * (chosen by the algorithm, never the reverse: no `none`, no algorithm confusion), the accepted
 * algorithms, issuer, audience and clock tolerance, and the claims → principal mapping (which
 * refuses node/a2a/tool tokens). passport-jwt only extracts the token and runs jsonwebtoken.
 */
@Injectable()
export class AdminJwtStrategy extends PassportStrategy(Strategy, ADMIN_JWT_STRATEGY) {
  constructor(@Inject(ADMIN_JWT_VERIFIER) private readonly verifier: JwtVerifier) {
    super({
      jwtFromRequest: (req: { headers: Record<string, string | string[] | undefined> }) => bearerToken(req.headers.authorization) ?? null,
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

  validate(claims: Record<string, unknown>): AdminPrincipal {
    return this.verifier.principalFrom(claims, 'admin');
  }
}
