import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { GqlExecutionContext } from '@nestjs/graphql';
import type { AdminPrincipal } from '@cp/auth';
import { CommonError, CommonErrorCode } from '../common/errors';

/** The verified token's principal (set by AdminGuard). Identity never comes from arguments. */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): AdminPrincipal => {
  const principal = GqlExecutionContext.create(context).getContext<{ req: { user?: AdminPrincipal } }>().req.user;
  if (!principal)
    throw new CommonError(CommonErrorCode.Unauthenticated, 'no verified principal: is the entry point guarded by AdminGuard?');
  return principal;
});
