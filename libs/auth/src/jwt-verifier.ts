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
  type UpstreamPrincipal,
} from './principals';

export interface JwtVerifierOptions extends KeySourceOptions {
  issuer: string;
  audience: string;
  /** Seconds of clock skew tolerated on exp/nbf/iat. */
  clockToleranceSeconds?: number;
  /** Longest `exp - iat` accepted per token kind (seconds); unset kinds use the defaults below. */
  maxLifetimeSeconds?: Partial<Record<TokenUse, number>>;
}

/** Longest lifetime (exp - iat) of each token kind, in seconds (ADR 0066). */
export const DEFAULT_MAX_LIFETIME_SECONDS: Record<TokenUse, number> = {
  admin: 12 * 3600,
  node: 30 * 24 * 3600,
  a2a: 3600,
  tool: 300,
  upstream: 300,
};

type Claims = jwt.JwtPayload & Record<string, unknown>;

const DEFAULT_CLOCK_TOLERANCE_SECONDS = 5;
const KINDS: readonly string[] = ['admin', 'node', 'a2a', 'tool', 'upstream'];

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
        algorithms: [decodeComplete(token)!.header.alg as jwt.Algorithm],
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
    const decoded = decodeComplete(token);
    if (!decoded || typeof decoded.payload === 'string') throw new AuthError(AuthErrorCode.Malformed, 'the bearer token is not a JWT');
    // RFC 7515 §4.1.11: a recipient must refuse a `crit` it does not understand, and this verifier
    // understands no extension (an empty list is itself invalid).
    if ('crit' in decoded.header) {
      throw new AuthError(AuthErrorCode.CriticalHeader, 'the token names a critical header extension that is not understood');
    }
    return this.keys.resolve(decoded.header);
  }

  /** Algorithms, issuer, audience and clock tolerance every verification uses (jsonwebtoken's option names). */
  jsonWebTokenOptions(): { algorithms: jwt.Algorithm[]; issuer: string; audience: string; clockTolerance: number } {
    return {
      algorithms: [...this.options.algorithms],
      issuer: this.options.issuer,
      audience: this.options.audience,
      clockTolerance: this.options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS,
    };
  }

  /** Verified claims → Principal, refusing a token minted for another use. */
  principalFrom<U extends TokenUse>(claims: Record<string, unknown>, use: U): Extract<Principal, { kind: U }> {
    if (claims.token_use !== use) {
      // The claim is the caller's text: named only when it is one of the known kinds.
      const claimed = typeof claims.token_use === 'string' && KINDS.includes(claims.token_use) ? claims.token_use : 'other';
      throw new AuthError(AuthErrorCode.WrongUse, `this endpoint accepts ${use} tokens, not ${claimed} tokens`);
    }
    this.checkLifetime(claims, use);
    return toPrincipal(use, claims) as Extract<Principal, { kind: U }>;
  }

  /**
   * exp and iat are required on every kind (a token without exp would never expire), the lifetime
   * is bounded per kind, and a token cannot have been issued in the future (beyond clock skew).
   * jsonwebtoken has already refused an exp in the past.
   */
  private checkLifetime(claims: Record<string, unknown>, use: TokenUse): void {
    const { exp, iat } = claims;
    if (typeof exp !== 'number' || !Number.isFinite(exp)) throw new AuthError(AuthErrorCode.BadClaims, 'the token has no "exp" claim');
    if (typeof iat !== 'number' || !Number.isFinite(iat)) throw new AuthError(AuthErrorCode.BadClaims, 'the token has no "iat" claim');
    const skew = this.options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS;
    if (iat > Date.now() / 1000 + skew) throw new AuthError(AuthErrorCode.NotYetValid, 'the token was issued in the future');
    const max = this.options.maxLifetimeSeconds?.[use] ?? DEFAULT_MAX_LIFETIME_SECONDS[use];
    if (exp - iat > max) {
      throw new AuthError(AuthErrorCode.LifetimeTooLong, `${use} tokens may live at most ${max} s (exp - iat is ${exp - iat} s)`);
    }
  }
}

/** jwt.decode, which throws (instead of answering null) on a segment that is not valid JSON. */
function decodeComplete(token: string): jwt.Jwt | null {
  try {
    return jwt.decode(token, { complete: true });
  } catch {
    return null;
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
  const value: unknown = claims[name];
  if (typeof value !== 'string' || value.length === 0) throw new AuthError(AuthErrorCode.BadClaims, `the token has no "${name}" claim`);
  return value;
};
const strings = (claims: Claims, name: string): string[] => {
  const value: unknown = claims[name] ?? [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw new AuthError(AuthErrorCode.BadClaims, `the token's "${name}" claim must be a list of strings`);
  return value as string[];
};
/** OAuth style: `scope` is one space-separated string. */
const scopes = (claims: Claims): string[] => {
  const value: unknown = claims.scope ?? '';
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
      return {
        kind: 'a2a',
        subject,
        tenant: str(claims, 'tenant'),
        scopes: scopes(claims),
        expiresAt: claims.exp as number,
      } satisfies A2APrincipal;
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
    case 'upstream': {
      const act = claims.act as { sub?: unknown } | undefined;
      if (typeof act?.sub !== 'string' || act.sub === '')
        throw new AuthError(AuthErrorCode.BadClaims, 'the token names no actor (act.sub)');
      return {
        kind: 'upstream',
        subject,
        tenant: str(claims, 'tenant'),
        scopes: scopes(claims),
        capabilityId: str(claims, 'capability'),
        agentId: str(claims, 'agent_id'),
        actor: act.sub,
      } satisfies UpstreamPrincipal;
    }
  }
}
