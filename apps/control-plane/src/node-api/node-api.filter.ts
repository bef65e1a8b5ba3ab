import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AuthError } from '@cp/auth';
import { NodeApiError, NodeApiErrorCode } from './node-api.errors';

/** Node API answers: NodeApiError with its status; Nest's own HTTP errors as they are; anything else 500 with an error id. */
@Catch()
export class NodeApiFilter implements ExceptionFilter {
  private readonly logger = new Logger('NodeApi');

  catch(error: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const { status, body } = nodeApiAnswer(error, this.logger);
    void reply.code(status).send(body);
  }
}

export function nodeApiAnswer(error: unknown, logger: Pick<Logger, 'error'>): { status: number; body: unknown } {
  if (error instanceof NodeApiError) return { status: error.status, body: error.toJSON() };
  if (error instanceof AuthError) return nodeApiAnswer(new NodeApiError(NodeApiErrorCode.Unauthenticated, error.message), logger);
  if (error instanceof HttpException) {
    return { status: error.getStatus(), body: { error: { code: 'HTTP_' + error.getStatus(), message: error.message } } };
  }
  const id = Math.random().toString(36).slice(2, 10);
  logger.error(`node API error ${id}: ${(error as Error)?.stack ?? String(error)}`);
  return { status: 500, body: { error: { code: 'INTERNAL', message: `internal error (id ${id})` } } };
}
