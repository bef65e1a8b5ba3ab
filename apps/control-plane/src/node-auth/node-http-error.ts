import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AuthError, wwwAuthenticate } from '@cp/auth';
import type { ValidationIssue } from '@cp/capabilities';

/**
 * A refusal of a /node/v1 endpoint. Every feature's error extends it with its own code enum and
 * status map, and every one answers in the node API's one shape: `{ error: { code, message, issues? } }`.
 */
export abstract class NodeHttpError<C extends string = string> extends Error {
  constructor(
    readonly code: C,
    message: string,
    readonly issues?: ValidationIssue[],
  ) {
    super(message);
  }

  abstract get status(): number;

  toJSON(): { error: { code: C; message: string; issues?: ValidationIssue[] } } {
    return { error: { code: this.code, message: this.message, ...(this.issues ? { issues: this.issues } : {}) } };
  }
}

/** Node tokens refused (401, naming why) and feature refusals (their status), in the one shape. */
@Catch(NodeHttpError, AuthError)
export class NodeHttpErrorFilter implements ExceptionFilter {
  catch(error: NodeHttpError | AuthError, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (error instanceof AuthError) {
      void reply
        .status(401)
        .header('www-authenticate', wwwAuthenticate(error.code))
        .send({ error: { code: error.code, message: error.message } });
      return;
    }
    void reply.status(error.status).send(error.toJSON());
  }
}
