/**
 * Who is calling an A2A endpoint. A passport-jwt strategy whose every rule comes from the shared
 * JwtVerifier (key by algorithm, algorithms, issuer, audience, clock tolerance, claims → principal,
 * token_use = a2a): one code path with the control plane's strategies. It runs outside Nest's
 * pipeline (the A2A routes are raw Fastify routes), through a small promise adapter.
 */
import { Strategy as JwtStrategy } from 'passport-jwt';
import { AuthError, AuthErrorCode, bearerToken, toAuthError, VerifiedTokens, type A2APrincipal, type JwtVerifier } from '@cp/auth';
import type { Caller } from '@cp/capabilities';
import { A2AError, A2AErrorName } from './a2a-errors';

export interface Authenticated {
  caller: Caller;
  /** The caller's raw token, for token exchange; undefined for anonymous. */
  token?: string;
}

type Req = { headers: Record<string, string | string[] | undefined> };

export class A2AAuthenticator {
  private readonly strategy: JwtStrategy;
  /**
   * One frozen Caller per verified principal (ADR 0375): every request of a remembered token gets
   * the same object, so what is derived from the caller (its entitlement class per bundle
   * revision) is computed once and found by identity. Weak: a Caller lives as long as its
   * principal's entry in `verified` (bounded, expiring with the token); a token verified again gets
   * a new one, and another token never shares it.
   */
  private readonly callers = new WeakMap<A2APrincipal, NonNullable<Caller>>();

  /** `verified`: tokens verified before (ADR 0241); pass one with maxEntries 0 to verify every time. */
  constructor(
    private readonly verifier: JwtVerifier,
    private readonly verified = new VerifiedTokens<A2APrincipal>(),
  ) {
    this.strategy = new JwtStrategy(
      {
        jwtFromRequest: (req: Req) => bearerToken(req.headers.authorization) ?? null,
        secretOrKeyProvider: (_req: unknown, raw: string, done: (err: unknown, key?: string | Buffer) => void) => {
          verifier.keyFor(raw).then(
            (key) => done(null, key as string | Buffer),
            (error: unknown) => done(error),
          );
        },
        ...verifier.jsonWebTokenOptions(),
      },
      (claims: Record<string, unknown>, done: (err: unknown, user?: unknown) => void) => {
        try {
          done(null, verifier.principalFrom(claims, 'a2a'));
        } catch (error) {
          done(error);
        }
      },
    );
  }

  /**
   * No Authorization header → anonymous (public capabilities only). A header that is not a valid
   * a2a token → Unauthenticated (never silently anonymous).
   */
  async authenticate(headers: Req['headers'], required = false): Promise<Authenticated> {
    if (headers.authorization === undefined || headers.authorization === '') {
      if (required) throw unauthenticated(new AuthError(AuthErrorCode.Missing, 'this operation needs a bearer token'));
      return { caller: null };
    }
    const token = bearerToken(headers.authorization);
    if (!token) throw unauthenticated(new AuthError(AuthErrorCode.Malformed, 'the Authorization header must be "Bearer <token>"'));
    let principal = this.verified.get(token);
    if (!principal) {
      principal = await this.run({ headers });
      this.verified.remember(token, principal, principal.expiresAt);
    }
    return { caller: this.callerOf(principal), token };
  }

  private callerOf(principal: A2APrincipal): NonNullable<Caller> {
    let caller = this.callers.get(principal);
    if (!caller) {
      caller = Object.freeze({ principal: principal.subject, tenant: principal.tenant, scopes: Object.freeze([...principal.scopes]) });
      this.callers.set(principal, caller);
    }
    return caller;
  }

  /** passport's strategy contract (success / fail / error) as a promise. */
  private run(req: Req): Promise<A2APrincipal> {
    return new Promise((resolve, reject) => {
      const s = Object.create(this.strategy) as JwtStrategy & {
        success(user: unknown): void;
        fail(info: unknown): void;
        error(err: unknown): void;
      };
      s.success = (user) => resolve(user as A2APrincipal);
      s.fail = (info) => reject(unauthenticated(info));
      s.error = (err) => reject(unauthenticated(err));
      s.authenticate(req as never, {});
    });
  }
}

function unauthenticated(cause: unknown): A2AError {
  const auth =
    cause instanceof AuthError
      ? cause
      : cause instanceof Error
        ? toAuthError(cause)
        : new AuthError(AuthErrorCode.Malformed, 'the bearer token is invalid');
  return new A2AError(A2AErrorName.Unauthenticated, auth.message, { authError: auth.code }, auth.code);
}
