import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AuthError } from '@cp/auth';
import { USAGE_INGEST_HTTP_STATUS, UsageIngestError } from './usage-ingest.errors';

/**
 * Refused batches and bad tokens → a JSON answer naming what is wrong, in the shape every
 * /node/v1 endpoint uses: `{ error: { code, message, issues? } }`.
 */
@Catch(UsageIngestError, AuthError)
export class UsageIngestFilter implements ExceptionFilter {
  catch(error: UsageIngestError | AuthError, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (error instanceof AuthError) {
      void reply
        .status(401)
        .header('www-authenticate', 'Bearer')
        .send({ error: { code: error.code, message: error.message } });
      return;
    }
    const status = USAGE_INGEST_HTTP_STATUS[error.code];
    void reply.status(status).send({ error: { code: error.code, message: error.message, issues: error.issues } });
  }
}
