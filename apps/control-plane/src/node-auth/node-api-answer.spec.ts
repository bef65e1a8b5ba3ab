import { BadRequestException, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { AuthError, AuthErrorCode, wwwAuthenticate } from '@cp/auth';
import { nodeApiAnswer } from './node-api-answer';
import { NodeInputError } from './node-http-error';

const logger = () => ({
  errors: [] as string[],
  error(message: string) {
    this.errors.push(message);
  },
});

describe('nodeApiAnswer: the one answer of every /node/v1 route', () => {
  it.each(Object.values(AuthErrorCode).filter((c) => c !== AuthErrorCode.WrongUse))(
    '%s: 401 with the fixed WWW-Authenticate of its code',
    (code) => {
      const answer = nodeApiAnswer(new AuthError(code, `refused: ${code}`), logger());
      expect(answer).toEqual({
        status: 401,
        headers: { 'www-authenticate': wwwAuthenticate(code) },
        body: { error: { code, message: `refused: ${code}` } },
      });
    },
  );

  it('a valid token of another kind: 403 insufficient_scope', () => {
    const answer = nodeApiAnswer(new AuthError(AuthErrorCode.WrongUse, 'this endpoint accepts node tokens only'), logger());
    expect(answer.status).toBe(403);
    expect(answer.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", error_description="the token is for another use"');
    expect(answer.body.error.code).toBe('TOKEN_WRONG_USE');
  });

  it('an invalid body: 400 INVALID_REQUEST with its issues', () => {
    const issues = [{ path: '$.counts[0].tenant', message: 'is not a known tenant' }];
    expect(nodeApiAnswer(new NodeInputError('invalid usage batch', issues), logger())).toEqual({
      status: 400,
      headers: {},
      body: { error: { code: 'INVALID_REQUEST', message: 'invalid usage batch', issues } },
    });
  });

  it.each([
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['a connection error wrapped as a cause', new Error('query failed', { cause: { code: '08006' } })],
  ])('PostgreSQL unreachable (%s): 503 SERVICE_UNAVAILABLE with Retry-After, nothing logged, no address leaked', (_what, error) => {
    const log = logger();
    const answer = nodeApiAnswer(error, log);
    expect(answer.status).toBe(503);
    expect(answer.headers).toEqual({ 'retry-after': '5' });
    expect(answer.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(JSON.stringify(answer.body)).not.toContain('5432');
    expect(log.errors).toEqual([]);
  });

  it('bodies Fastify refused: 413 naming the limit, 400 INVALID_REQUEST at $', () => {
    expect(nodeApiAnswer(new PayloadTooLargeException(), logger(), 4096).body).toEqual({
      error: { code: 'PAYLOAD_TOO_LARGE', message: 'request body is larger than the limit of 4096 bytes (MAX_BODY_BYTES)' },
    });
    const bad = nodeApiAnswer(new BadRequestException('Body is not valid JSON'), logger());
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'INVALID_REQUEST', issues: [{ path: '$', message: 'Body is not valid JSON' }] });
    expect(nodeApiAnswer(new NotFoundException('no route'), logger()).body.error.code).toBe('HTTP_404');
  });

  it('anything else: 500 INTERNAL with an error id that is logged with the cause, the cause not answered', () => {
    const log = logger();
    const answer = nodeApiAnswer(new TypeError('secret detail'), log);
    expect(answer.status).toBe(500);
    const id = /\(id ([a-z0-9]+)\)/.exec(answer.body.error.message)?.[1];
    expect(id).toBeDefined();
    expect(answer.body.error.message).not.toContain('secret detail');
    expect(log.errors).toHaveLength(1);
    expect(log.errors[0]).toContain(id);
    expect(log.errors[0]).toContain('secret detail');
  });
});
