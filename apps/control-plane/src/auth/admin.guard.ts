import type { IncomingMessage } from 'node:http';
import { Inject, Injectable, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { GqlExecutionContext, type GqlContextType } from '@nestjs/graphql';
import { AuthGuard } from '@nestjs/passport';
import { AuthError, AuthErrorCode, bearerToken, toAuthError, type AdminPrincipal, type AdminRole, type VerifiedTokens } from '@cp/auth';
import { recordPrincipal } from '@cp/common';
import { CommonError, CommonErrorCode } from '../common/errors';
import { ADMIN_VERIFIED_TOKENS } from './admin-auth.tokens';
import { ADMIN_JWT_STRATEGY } from './admin-jwt.strategy';
import { READ_ROLES, ROLES_KEY, WRITE_ROLES } from './roles.decorator';

type GuardedRequest = { headers: Record<string, unknown>; raw: IncomingMessage; user?: AdminPrincipal; authentication?: Promise<void> };

/**
 * Guards every admin GraphQL entry point (queries, mutations and field resolvers): verifies the
 * bearer token with the 'admin-jwt' passport strategy once per request (field resolvers reuse the
 * verification's promise kept on the request; a token the strategy verified lately is taken from
 * the verified-token cache instead, ADR 0342), then checks @Roles, or the default: any admin role reads, viewers
 * never mutate. Per-object rules (team admins and their teams) are AccessPolicy's.
 */
@Injectable()
export class AdminGuard extends AuthGuard(ADMIN_JWT_STRATEGY) {
  constructor(
    private readonly reflector: Reflector,
    @Inject(ADMIN_VERIFIED_TOKENS) private readonly verified: VerifiedTokens<AdminPrincipal>,
  ) {
    super();
  }

  override getRequest(context: ExecutionContext): GuardedRequest {
    return GqlExecutionContext.create(context).getContext<{ req: GuardedRequest }>().req;
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType<GqlContextType>() !== 'graphql') return false;
    const request = this.getRequest(context);
    if (!request.user) await this.authenticateOnce(request, context);
    const principal = request.user!;
    const allowed =
      this.reflector.getAllAndOverride<AdminRole[] | undefined>(ROLES_KEY, [context.getHandler(), context.getClass()]) ??
      this.defaultRoles(context);
    if (!principal.roles.some((role) => allowed.includes(role))) {
      throw new CommonError(
        CommonErrorCode.Forbidden,
        `this operation needs one of the roles ${allowed.join(', ')}; the token has ${principal.roles.join(', ')}`,
        {
          requiredRoles: allowed,
        },
      );
    }
    return true;
  }

  /**
   * The token is verified once per request: every field's guard awaits the same verification
   * (they start concurrently), so an operation with 500 aliased fields and a bad token costs one
   * verification and one refusal, not 500.
   */
  private authenticateOnce(request: GuardedRequest, context: ExecutionContext): Promise<void> {
    request.authentication ??= (async () => {
      // A token verified in full lately, not past its exp, is not verified again (ADR 0342).
      const header = request.headers.authorization;
      const known = typeof header === 'string' ? this.verified.get(bearerToken(header) ?? '') : undefined;
      if (known) request.user = known;
      else await super.canActivate(context);
      recordPrincipal(request.raw, 'admin', request.user!.subject);
    })();
    return request.authentication;
  }

  override handleRequest<T = AdminPrincipal>(err: unknown, user: T | false, info: unknown): T {
    if (user && !err) return user;
    const cause = err ?? info;
    if (cause instanceof AuthError) throw cause;
    // passport-jwt's own failure for a request without a token.
    if (cause instanceof Error && cause.message === 'No auth token')
      throw new AuthError(AuthErrorCode.Missing, 'a bearer token is required');
    throw cause instanceof Error ? toAuthError(cause) : new AuthError(AuthErrorCode.Malformed, 'the bearer token is invalid');
  }

  private defaultRoles(context: ExecutionContext): readonly AdminRole[] {
    const operation = GqlExecutionContext.create(context).getInfo<{ parentType: { name: string } }>().parentType.name;
    return operation === 'Mutation' ? WRITE_ROLES : READ_ROLES;
  }
}
