import { Catch, HttpException, HttpStatus, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { nodeApiAnswer, sendNodeApiAnswer } from '../../node-auth/node-api-answer';
import { ApiErrorCode } from '../errors';

/**
 * The control plane's global exception filter.
 * - GraphQL: every error goes on unchanged to the error formatter, which answers it and logs only
 *   unknown ones (with an error id). Without this, Nest's default filter logs every thrown error
 *   (a refused token, a NOT_FOUND) at error level with its stack, once per aliased field.
 * - HTTP: Fastify refuses a body over MAX_BODY_BYTES (bodyLimit) before any route runs, and Nest
 *   answers its terse "Request body is too large". This answers 413 naming the limit, in a shape
 *   both plain HTTP clients (`message`) and GraphQL clients (`errors[].extensions.code`) read.
 *   Other HTTP errors are answered as Nest's default filter would (status and body of the
 *   exception, e.g. terminus's 503 with its health report); anything else is a logged 500.
 * - /node/v1: every error is answered by the node API's one answer (nodeApiAnswer).
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Http');

  constructor(private readonly limit: number) {}

  catch(exception: unknown, host: ArgumentsHost): unknown {
    if (host.getType() !== 'http') return exception;
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    // Bodies Fastify refuses before a route runs (not JSON, too large) on the node API answer like every
    // error of its routes (node-auth/node-api-answer.ts).
    if (host.switchToHttp().getRequest<FastifyRequest>().url.startsWith('/node/')) {
      return sendNodeApiAnswer(reply, nodeApiAnswer(exception, this.logger, this.limit));
    }
    if (!(exception instanceof HttpException)) {
      this.logger.error(exception instanceof Error ? exception : String(exception));
      return reply.status(500).send({ statusCode: 500, message: 'Internal server error' });
    }
    if (exception.getStatus() !== HttpStatus.PAYLOAD_TOO_LARGE) {
      const body = exception.getResponse();
      return reply
        .status(exception.getStatus())
        .send(typeof body === 'string' ? { statusCode: exception.getStatus(), message: body } : body);
    }
    const message = `request body is larger than the limit of ${this.limit} bytes (MAX_BODY_BYTES)`;
    return reply.status(413).send({
      statusCode: 413,
      error: 'Payload Too Large',
      message,
      errors: [{ message, extensions: { code: ApiErrorCode.PayloadTooLarge, limit: this.limit } }],
    });
  }
}
