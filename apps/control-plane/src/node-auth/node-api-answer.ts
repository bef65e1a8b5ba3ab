import { HttpException, type Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AuthError, AuthErrorCode, wwwAuthenticate } from '@cp/auth';
import { isDatabaseUnavailable } from '../common/errors/database-unavailable';
import { NodeHttpError } from './node-http-error';

export interface NodeApiAnswer {
  status: number;
  headers: Record<string, string>;
  body: { error: { code: string; message: string; issues?: unknown[] } };
}

/** Seconds a node waits before retrying while PostgreSQL is away (as the admin API answers). */
export const NODE_API_RETRY_AFTER_SECONDS = 5;
const WRONG_USE_CHALLENGE = 'Bearer error="insufficient_scope", error_description="the token is for another use"';

/**
 * The one answer of every /node/v1 route to any error, used by NodeApiFilter (Nest routes), the
 * bare bundle route and the global filter (bodies Fastify refuses before a route runs):
 * - a missing or invalid token: 401 and `WWW-Authenticate` from `wwwAuthenticate(code)` (fixed
 *   text per code, never token text); a valid token of another kind (admin, a2a): 403;
 * - a feature's refusal (NodeHttpError): its status, code, message and issues;
 * - PostgreSQL unreachable: 503 SERVICE_UNAVAILABLE with Retry-After, nothing logged as a fault;
 * - a body Fastify refused: 413 PAYLOAD_TOO_LARGE naming the limit, 400 INVALID_REQUEST;
 * - anything else: 500 INTERNAL with an error id that is logged with the stack.
 */
export function nodeApiAnswer(error: unknown, logger: Pick<Logger, 'error'>, bodyLimit?: number): NodeApiAnswer {
  if (error instanceof NodeHttpError) return { status: error.status, headers: {}, body: error.toJSON() };
  if (error instanceof AuthError) {
    const wrongUse = error.code === AuthErrorCode.WrongUse;
    return {
      status: wrongUse ? 403 : 401,
      headers: { 'www-authenticate': wrongUse ? WRONG_USE_CHALLENGE : wwwAuthenticate(error.code) },
      body: { error: { code: error.code, message: error.message } },
    };
  }
  if (isDatabaseUnavailable(error)) {
    return {
      status: 503,
      headers: { 'retry-after': String(NODE_API_RETRY_AFTER_SECONDS) },
      body: { error: { code: 'SERVICE_UNAVAILABLE', message: 'the registry database is unavailable; retry later' } },
    };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    if (status === 413) {
      const limit = bodyLimit === undefined ? '' : ` of ${bodyLimit} bytes (MAX_BODY_BYTES)`;
      return {
        status,
        headers: {},
        body: { error: { code: 'PAYLOAD_TOO_LARGE', message: `request body is larger than the limit${limit}` } },
      };
    }
    if (status === 400 || status === 415) {
      return {
        status: 400,
        headers: {},
        body: { error: { code: 'INVALID_REQUEST', message: error.message, issues: [{ path: '$', message: error.message }] } },
      };
    }
    return { status, headers: {}, body: { error: { code: `HTTP_${status}`, message: error.message } } };
  }
  const id = Math.random().toString(36).slice(2, 10);
  logger.error(`node API error ${id}: ${(error as Error | undefined)?.stack ?? String(error)}`);
  return { status: 500, headers: {}, body: { error: { code: 'INTERNAL', message: `internal error (id ${id})` } } };
}

export function sendNodeApiAnswer(reply: FastifyReply, answer: NodeApiAnswer): FastifyReply {
  return reply.code(answer.status).headers(answer.headers).send(answer.body);
}
