import { Catch, HttpException, HttpStatus, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiErrorCode } from '../errors';

/**
 * Fastify refuses a body over MAX_BODY_BYTES (bodyLimit) before any route runs, and Nest answers
 * its terse "Request body is too large". This answers 413 naming the limit, in a shape both plain
 * HTTP clients (`message`) and GraphQL clients (`errors[].extensions.code`) read. Everything else
 * goes on unchanged: other HTTP errors are answered as Nest's default filter would (status and
 * body of the exception, e.g. terminus's 503 with its health report), GraphQL errors go to the formatter.
 */
@Catch(HttpException)
export class BodyLimitFilter implements ExceptionFilter {
  constructor(private readonly limit: number) {}

  catch(exception: HttpException, host: ArgumentsHost): unknown {
    if (host.getType() !== 'http') return exception;
    // Bodies Fastify refuses before a route runs (not JSON, too large) on the node API still answer
    // in the node API's one shape, `{ error: { code, message } }`.
    const url = host.switchToHttp().getRequest<FastifyRequest>().url;
    if (url.startsWith('/node/')) {
      const status = exception.getStatus();
      const code = status === 413 ? ApiErrorCode.PayloadTooLarge : status === 400 ? 'INVALID_REQUEST' : `HTTP_${status}`;
      const message = status === 413 ? `request body is larger than the limit of ${this.limit} bytes (MAX_BODY_BYTES)` : exception.message;
      return host.switchToHttp().getResponse<FastifyReply>().status(status).send({ error: { code, message } });
    }
    if (exception.getStatus() !== HttpStatus.PAYLOAD_TOO_LARGE) {
      const body = exception.getResponse();
      return host
        .switchToHttp()
        .getResponse<FastifyReply>()
        .status(exception.getStatus())
        .send(typeof body === 'string' ? { statusCode: exception.getStatus(), message: body } : body);
    }
    const message = `request body is larger than the limit of ${this.limit} bytes (MAX_BODY_BYTES)`;
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    return reply.status(413).send({
      statusCode: 413,
      error: 'Payload Too Large',
      message,
      errors: [{ message, extensions: { code: ApiErrorCode.PayloadTooLarge, limit: this.limit } }],
    });
  }
}
