import { createParamDecorator, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { NodePrincipal } from '@cp/auth';
import { recordPrincipal } from '@cp/common';
import { NodeAuthenticator } from './node-authenticator';

type NodeRequest = FastifyRequest & { nodePrincipal?: NodePrincipal };

/** Node API entry points accept node tokens only; the agent comes from the token, never the body. */
@Injectable()
export class NodeTokenGuard implements CanActivate {
  constructor(private readonly auth: NodeAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<NodeRequest>();
    request.nodePrincipal = await this.auth.authenticate(request.headers.authorization);
    recordPrincipal(request.raw, 'node', request.nodePrincipal.subject);
    return true;
  }
}

export const CurrentNode = createParamDecorator((_data: unknown, context: ExecutionContext): NodePrincipal => {
  return context.switchToHttp().getRequest<NodeRequest>().nodePrincipal!;
});
