import { GraphQLError } from 'graphql';
import { AuthError, AuthErrorCode } from '@cp/auth';
import { Prisma, RegistryError, RegistryErrorCode } from '@cp/db';
import { InputValidationError, notFound } from './common.errors';
import { createErrorFormatter } from './error-formatter';

const logged: { message: string; error: unknown }[] = [];
const format = createErrorFormatter({ error: (message, error) => logged.push({ message, error }) });
const wrap = (original: Error) => new GraphQLError(original.message, { originalError: original, path: ['field'] });
const run = (original: Error) => format({ message: original.message, path: ['field'] }, wrap(original));
const prismaError = (code: string, meta: Record<string, unknown> = {}) =>
  new Prisma.PrismaClientKnownRequestError('db said no', { code, clientVersion: '7', meta });

describe('GraphQL error formatter', () => {
  it.each([
    ['a feature error', notFound('agent', 'a1'), { code: 'NOT_FOUND', reason: 'NOT_FOUND', type: 'agent', id: 'a1' }],
    [
      'a stale revision',
      new RegistryError(RegistryErrorCode.StaleRevision, 'stale', { agentId: 'a', expectedRevision: 1, currentRevision: 2 }),
      { code: 'CONFLICT', currentRevision: 2 },
    ],
    ['an unknown agent', new RegistryError(RegistryErrorCode.AgentNotFound, 'x', { agentId: 'a' }), { code: 'NOT_FOUND' }],
    ['an auth error', new AuthError(AuthErrorCode.Expired, 'expired'), { code: 'UNAUTHENTICATED', reason: 'TOKEN_EXPIRED' }],
    ['a unique violation', prismaError('P2002', { target: ['id'] }), { code: 'CONFLICT', target: 'id' }],
    ['a missing record', prismaError('P2025'), { code: 'NOT_FOUND' }],
  ])('maps %s', (_name, error, extensions) => {
    expect(run(error).extensions).toMatchObject(extensions);
  });

  it('keeps every validation error with its path', () => {
    const issues = [
      { path: '$.id', message: 'bad' },
      { path: '$.skill.name', message: 'is required' },
    ];
    expect(run(new InputValidationError(issues)).extensions).toMatchObject({ code: 'BAD_USER_INPUT', validationErrors: issues });
  });

  it('hides an unknown error behind an errorId that is logged with the real error', () => {
    const secret = new Error('connection to 10.0.0.5 refused: password=hunter2');
    const out = run(secret);
    expect(out.message).not.toContain('hunter2');
    expect(out.extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR', errorId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(logged.at(-1)).toEqual({ message: expect.stringContaining(out.extensions!.errorId as string), error: secret });
  });

  it('gives errors of the GraphQL layer a code', () => {
    expect(format({ message: 'Syntax Error' }, new GraphQLError('Syntax Error')).extensions).toEqual({ code: 'BAD_USER_INPUT' });
  });
});
