import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AuthError } from '@cp/auth';
import { TOKEN_EXCHANGE_HTTP_STATUS, TokenExchangeError } from './token-exchange.errors';

/** Bad node tokens → 401; refused exchanges → their status, naming what is wrong. */
@Catch(TokenExchangeError, AuthError)
export class TokenExchangeFilter implements ExceptionFilter {
  catch(error: TokenExchangeError | AuthError, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (error instanceof AuthError) {
      void reply
        .status(401)
        .header('www-authenticate', 'Bearer')
        .send({ error: { code: error.code, message: error.message } });
      return;
    }
    const status = TOKEN_EXCHANGE_HTTP_STATUS[error.code];
    void reply.status(status).send({ error: { code: error.code, message: error.message } });
  }
}
