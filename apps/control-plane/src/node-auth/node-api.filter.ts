import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { nodeApiAnswer, sendNodeApiAnswer } from './node-api-answer';

/** The one exception filter of every /node/v1 controller (the bare bundle route answers through nodeApiAnswer too). */
@Catch()
export class NodeApiFilter implements ExceptionFilter {
  private readonly logger = new Logger('NodeApi');

  catch(error: unknown, host: ArgumentsHost): void {
    void sendNodeApiAnswer(host.switchToHttp().getResponse<FastifyReply>(), nodeApiAnswer(error, this.logger));
  }
}
