import type { KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { AuthError, AuthErrorCode } from './auth.errors';
import { KeyResolver, type KeySourceOptions } from './key-resolver';
import {
  ADMIN_ROLES,
  type A2APrincipal,
  type AdminPrincipal,
  type AdminRole,
  type NodePrincipal,
  type Principal,
  type TokenUse,
  type ToolPrincipal,
} from './principals';

export interface JwtVerifierOptions extends KeySourceOptions {
  issuer: string;
  audience: string;
  /** Seconds of clock skew tolerated on exp/nbf. */
  clockToleranceSeconds?: number;
}

type Claims = jwt.JwtPayload & Record<string, unknown>;

/**
 * Verifies a bearer token completely (signature with the key its algorithm allows, expiry,
 * not-before, issuer, audience, token_use) and turns its claims into a Principal.
 * The passport strategies and the agent node's fast paths all call this one function.
 */
export class JwtVerifier {
  private readonly keys: KeyResolver;

  constructor(private readonly options: JwtVerifierOptions) {
    this.keys = new KeyResolver(options);
  }

  async verify<U extends TokenUse>(token: string | undefined, use: U): Promise<Extract<Principal, { kind: U }>> {
    if (!token) throw new AuthError(AuthErrorCode.Missing, 'a bearer token is required');
    const key = await this.keyFor(token);
    let claims: Claims;
    try {
      claims = jwt.verify(token, key, {
        ...this.jsonWebTokenOptions(),
        algorithms: [jwt.decode(token, { complete: true })!.header.alg as jwt.Algorithm],
      }) as Claims;
    } catch (error) {
      throw toAuthError(error as Error);
    }
    return this.principalFrom(claims, use);
  }

  /**
   * The key this token's header allows (the algorithm picks the key type, never the reverse).
   * Exposed so passport-jwt's `secretOrKeyProvider` uses exactly this rule.
   */
  async keyFor(token: string): Promise<string | KeyObject> {
    const decoded = jwt.decode(token, { complete: true });
    if (!decoded || typeof decoded.payload === 'string') throw new AuthError(AuthErrorCode.Malformed, 'the bearer token is not a JWT');
    return this.keys.resolve(decoded.header);
  }

  /** Algorithms, issuer, audience and clock tolerance every verification uses (jsonwebtoken's option names). */
  jsonWebTokenOptions(): { algorithms: jwt.Algorithm[]; issuer: string; audience: string; clockTolerance: number } {
    return {
      algorithms: [...this.options.algorithms],
      issuer: this.options.issuer,
      audience: this.options.audience,
      clockTolerance: this.options.clockToleranceSeconds ?? 5,
    };
  }

  /** Verified claims → Principal, refusing a token minted for another use. */
  principalFrom<U extends TokenUse>(claims: Record<string, unknown>, use: U): Extract<Principal, { kind: U }> {
    if (claims.token_use !== use) {
      throw new AuthError(
        AuthErrorCode.WrongUse,
        `this endpoint accepts ${use} tokens, not ${String(claims.token_use ?? 'untyped')} tokens`,
      );
    }
    return toPrincipal(use, claims as Claims) as Extract<Principal, { kind: U }>;
  }
}

/** A jsonwebtoken (or passport-jwt) failure as the AuthError the caller sees. */
export function toAuthError(error: Error): AuthError {
  if (error instanceof AuthError) return error;
  if (error instanceof jwt.TokenExpiredError) return new AuthError(AuthErrorCode.Expired, 'the bearer token has expired');
  if (error instanceof jwt.NotBeforeError) return new AuthError(AuthErrorCode.NotYetValid, 'the bearer token is not valid yet');
  const message = error.message;
  if (message.startsWith('jwt issuer invalid')) return new AuthError(AuthErrorCode.WrongIssuer, 'the bearer token has the wrong issuer');
  if (message.startsWith('jwt audience invalid'))
    return new AuthError(AuthErrorCode.WrongAudience, 'the bearer token has the wrong audience');
  if (message === 'invalid signature') return new AuthError(AuthErrorCode.BadSignature, 'the bearer token signature does not verify');
  if (message.startsWith('invalid algorithm'))
    return new AuthError(AuthErrorCode.AlgorithmNotAllowed, 'the bearer token algorithm does not fit its key');
  return new AuthError(AuthErrorCode.Malformed, `the bearer token is invalid (${message})`);
}

const str = (claims: Claims, name: string): string => {
  const value = claims[name];
  if (typeof value !== 'string' || value.length === 0) throw new AuthError(AuthErrorCode.BadClaims, `the token has no "${name}" claim`);
  return value;
};
const strings = (claims: Claims, name: string): string[] => {
  const value = claims[name] ?? [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw new AuthError(AuthErrorCode.BadClaims, `the token's "${name}" claim must be a list of strings`);
  return value as string[];
};
/** OAuth style: `scope` is one space-separated string. */
const scopes = (claims: Claims): string[] => {
  const value = claims.scope ?? '';
  if (typeof value !== 'string')
    throw new AuthError(AuthErrorCode.BadClaims, 'the token\'s "scope" claim must be a space-separated string');
  return [...new Set(value.split(' ').filter(Boolean))].sort();
};

function toPrincipal(use: TokenUse, claims: Claims): Principal {
  const subject = str(claims, 'sub');
  switch (use) {
    case 'admin': {
      const roles = strings(claims, 'roles');
      const unknown = roles.filter((r) => !(ADMIN_ROLES as readonly string[]).includes(r));
      if (unknown.length) throw new AuthError(AuthErrorCode.BadClaims, `unknown role(s): ${unknown.join(', ')}`);
      if (roles.length === 0) throw new AuthError(AuthErrorCode.BadClaims, 'the token carries no role');
      return { kind: 'admin', subject, roles: roles as AdminRole[], teams: strings(claims, 'teams') } satisfies AdminPrincipal;
    }
    case 'node':
      return { kind: 'node', subject, agentId: str(claims, 'agent_id') } satisfies NodePrincipal;
    case 'a2a':
      return { kind: 'a2a', subject, tenant: str(claims, 'tenant'), scopes: scopes(claims) } satisfies A2APrincipal;
    case 'tool':
      return {
        kind: 'tool',
        subject,
        tenant: str(claims, 'tenant'),
        scopes: scopes(claims),
        tool: str(claims, 'tool'),
        capabilityId: str(claims, 'capability'),
        actor: str(claims, 'act_sub'),
      } satisfies ToolPrincipal;
  }
}
