import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InjectConfig, type AppConfig } from '@cp/common';
import { mintAdminToken } from '@cp/auth';
import { CONSOLE_PATH, cacheControlFor, consoleCsp, consoleSettings, devSignInRefusal, parseDevSignIn } from './console-settings';

const DEV_TOKEN_SECONDS = 8 * 3600;

/**
 * The admin console's HTTP side (docs/console.md): the built single-page app under /console
 * (hashed assets immutable, everything else revalidated, any other path under /console answers
 * index.html so deep links work), GET /console/config.json (how to sign in) and, outside
 * production only and when CONSOLE_DEV_SIGN_IN=true, POST /console/dev-sign-in (loopback Host and Origin only). The console itself reads and writes through
 * /graphql like any other client.
 */
@Injectable()
export class ConsoleRoutes implements OnModuleInit {
  private readonly logger = new Logger('Console');
  private readonly dir: string;
  private readonly csp: string;

  constructor(
    private readonly host: HttpAdapterHost,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    this.dir = isAbsolute(config.CONSOLE_DIR) ? config.CONSOLE_DIR : join(process.cwd(), config.CONSOLE_DIR);
    this.csp = consoleCsp(config);
  }

  onModuleInit(): void {
    const fastify = this.host.httpAdapter.getInstance<FastifyInstance>();
    const built = existsSync(join(this.dir, 'index.html'));
    if (built) {
      void fastify.register(fastifyStatic, {
        root: this.dir,
        prefix: `${CONSOLE_PATH}/`,
        // One route per built file (found at boot); unknown paths fall through to index.html below.
        wildcard: false,
        index: false,
        decorateReply: false,
        cacheControl: false,
        etag: true,
        lastModified: true,
        setHeaders: (reply: FastifyReply, path: string) => {
          void reply.header('cache-control', cacheControlFor(relative(this.dir, path).split('\\').join('/')));
          void reply.header('content-security-policy', this.csp);
        },
      });
    } else {
      this.logger.warn(`no console at ${this.dir} (npm run build builds it); ${CONSOLE_PATH} explains how to build it`);
    }
    fastify.get(`${CONSOLE_PATH}/config.json`, (_request, reply) =>
      reply.header('cache-control', 'no-store').type('application/json; charset=utf-8').send(consoleSettings(this.config)),
    );
    fastify.post(`${CONSOLE_PATH}/dev-sign-in`, (request, reply) => this.devSignIn(request, reply));
    const page = (_request: unknown, reply: FastifyReply) => this.indexHtml(reply, built);
    fastify.get(CONSOLE_PATH, page);
    fastify.get(`${CONSOLE_PATH}/*`, page);
  }

  private async indexHtml(reply: FastifyReply, built: boolean): Promise<FastifyReply> {
    reply.header('cache-control', 'no-cache');
    if (!built) {
      return reply
        .code(404)
        .type('text/plain; charset=utf-8')
        .send('The admin console is not built: run `npm run build` (it builds apps/console into dist/console).\n');
    }
    const html = await readFile(join(this.dir, 'index.html'));
    return reply.header('content-security-policy', this.csp).type('text/html; charset=utf-8').send(html);
  }

  private devSignIn(request: FastifyRequest, reply: FastifyReply): FastifyReply {
    reply.header('cache-control', 'no-store');
    if (!this.config.CONSOLE_DEV_SIGN_IN) {
      return reply.code(404).send({
        error: { code: 'NOT_FOUND', message: 'the development sign-in is off (CONSOLE_DEV_SIGN_IN=true turns it on; never in production)' },
      });
    }
    // A loopback Host, no proxy, a loopback Origin: neither a DNS-rebinding page nor a request
    // forwarded by a same-host proxy gets a platform-admin token (ADR 0210).
    const refusal = devSignInRefusal(request.headers);
    if (refusal) return reply.code(403).send({ error: { code: 'FORBIDDEN', message: refusal } });
    // JSON only: a cross-site form post cannot send it without a CORS preflight this server never grants.
    if (request.headers['content-type']?.split(';')[0]?.trim() !== 'application/json') {
      return reply.code(415).send({ error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'send the body as application/json' } });
    }
    const parsed = parseDevSignIn(request.body);
    if ('error' in parsed) return reply.code(400).send({ error: { code: 'BAD_USER_INPUT', message: parsed.error } });
    const token =
      parsed.kind === 'admin'
        ? mintAdminToken(this.config, 'dev:platform-admin', ['platform-admin'], [], DEV_TOKEN_SECONDS)
        : parsed.kind === 'viewer'
          ? mintAdminToken(this.config, 'dev:viewer', ['viewer'], [], DEV_TOKEN_SECONDS)
          : mintAdminToken(this.config, `dev:team-admin:${parsed.team}`, ['team-admin'], [parsed.team!], DEV_TOKEN_SECONDS);
    return reply.send({ token, expiresIn: DEV_TOKEN_SECONDS });
  }
}
