import type { IncomingMessage } from 'node:http';
import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { AppConfig } from '../config/config';
import { AppConfigToken } from '../config/config.provider';

import { requestIdFor } from '../http/fastify-adapter';

type WithId = IncomingMessage & { id?: string };

/** Structured JSON logs (pino) with the request id on every line logged during a request. */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [AppConfigToken],
      useFactory: (config: AppConfig) => ({
        pinoHttp: {
          level: config.LOG_LEVEL,
          // The Fastify adapter already chose the id (see createFastifyAdapter).
          genReqId: (req: WithId) => req.id ?? requestIdFor(req),
          customProps: (req: WithId) => ({ requestId: req.id }),
          redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
          autoLogging: { ignore: (req: IncomingMessage) => req.url === '/healthz' || req.url === '/readyz' },
        },
      }),
    }),
  ],
})
export class LoggingModule {}
