import type { IncomingMessage } from 'node:http';
import { Global, Inject, Module, RequestMethod, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { LoggerModule } from 'nestjs-pino';
import pretty from 'pino-pretty';
import { pino, type DestinationStream, type Logger as PinoInstance } from 'pino';
import type { AppConfig } from '../config/config';
import { AppConfigToken } from '../config/config.provider';
import { requestIdFor } from '../http/fastify-adapter';
import { registerAccessLog } from './access-log';
import { currentTraceId } from '../observability/tracing';

type WithId = IncomingMessage & { id?: string };

/**
 * Lines for people (pino-pretty, coloured) when asked, or by default when stdout is a terminal
 * outside production; JSON otherwise (production, pipes, log shippers).
 */
export function logFormat(config: Pick<AppConfig, 'LOG_FORMAT' | 'NODE_ENV'>, stdoutIsTty: boolean): 'pretty' | 'json' {
  if (config.LOG_FORMAT !== 'auto') return config.LOG_FORMAT;
  return stdoutIsTty && config.NODE_ENV !== 'production' ? 'pretty' : 'json';
}

// A fresh object every time: pino's default merge strategy assigns the line's own fields into the
// mixin's object, so a shared (or frozen) one would leak fields between lines (or throw).
function traceMixin(): object {
  const traceId = currentTraceId();
  return traceId === null ? {} : { traceId };
}

/** pino-pretty in this thread (a transport's worker thread would outlive jest and Nest's shutdown). */
function prettyStream(): DestinationStream {
  return pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true });
}

/**
 * GET paths every client revalidates at high rates and that log nothing during the request: the
 * public agent card (A2A) and the node bundle (/node/v1/bundle). pino-http's middleware (a child
 * logger and a request context per request) is skipped there; their access line still carries the
 * request id. Literal paths because this lib imports none of ours (ADR 0122).
 */
const NO_REQUEST_LOGGER = ['/.well-known/agent-card.json', '/node/v1/bundle'];

/** Where log lines go: stdout unless a test provides a stream (overrideProvider) to read them. */
export const LogDestinationToken = Symbol('LOG_DESTINATION');
/** The app's one pino logger (pino-http's request loggers and the access log derive from it). */
export const RootLoggerToken = Symbol('ROOT_LOGGER');

@Global()
@Module({
  providers: [
    { provide: LogDestinationToken, useValue: null },
    {
      provide: RootLoggerToken,
      inject: [AppConfigToken, LogDestinationToken],
      useFactory: (config: AppConfig, destination: DestinationStream | null): PinoInstance =>
        pino(
          {
            level: config.LOG_LEVEL,
            redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
            // Every line logged inside a traced span names its trace (nothing while tracing is off).
            mixin: traceMixin,
          },
          destination ?? (logFormat(config, process.stdout.isTTY === true) === 'pretty' ? prettyStream() : undefined),
        ),
    },
  ],
  exports: [LogDestinationToken, RootLoggerToken],
})
class RootLoggerModule {}

/** Registers the access log on the app's Fastify instance (every route, raw ones included). */
class AccessLogRegistrar implements OnModuleInit {
  constructor(
    private readonly host: HttpAdapterHost,
    @Inject(RootLoggerToken) private readonly logger: PinoInstance,
  ) {}

  onModuleInit(): void {
    const app = this.host.httpAdapter?.getInstance<FastifyInstance>();
    if (app && typeof app.addHook === 'function') registerAccessLog(app, this.logger);
  }
}

/**
 * Structured JSON logs (pino) with the request id on every line logged during a request, and one
 * access-log line per request (method, route, status, duration, principal, request id; see
 * access-log.ts). pino-http's own per-request line is off: it logs headers and the raw URL.
 */
@Module({
  imports: [
    RootLoggerModule,
    LoggerModule.forRootAsync({
      inject: [RootLoggerToken],
      useFactory: (logger: PinoInstance) => ({
        exclude: NO_REQUEST_LOGGER.map((path) => ({ path, method: RequestMethod.GET })),
        pinoHttp: {
          logger,
          // The Fastify adapter already chose the id (see createFastifyAdapter).
          genReqId: (req: WithId) => req.id ?? requestIdFor(req),
          customProps: (req: WithId) => ({ requestId: req.id }),
          autoLogging: false,
          quietReqLogger: true,
        },
      }),
    }),
  ],
  providers: [
    {
      provide: AccessLogRegistrar,
      inject: [HttpAdapterHost, RootLoggerToken],
      useFactory: (h: HttpAdapterHost, l: PinoInstance) => new AccessLogRegistrar(h, l),
    },
  ],
})
export class LoggingModule {}
