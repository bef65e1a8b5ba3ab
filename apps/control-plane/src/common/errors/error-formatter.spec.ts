import { GraphQLError } from 'graphql';
import { AuthError, AuthErrorCode } from '@cp/auth';
import { Prisma, RegistryError, RegistryErrorCode } from '@cp/db';
import { RetirementError, RetirementErrorCode } from '@cp/jobs';
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
    [
      'a retirement request for an agent that is gone',
      new RetirementError(RetirementErrorCode.AgentNotFound, 'agent "a" not found', { agentId: 'a' }),
      { code: 'NOT_FOUND', reason: 'AGENT_NOT_FOUND', type: 'agent', id: 'a' },
    ],
    ['an auth error', new AuthError(AuthErrorCode.Expired, 'expired'), { code: 'UNAUTHENTICATED', reason: 'TOKEN_EXPIRED' }],
    ['a unique violation', prismaError('P2002', { target: ['id'] }), { code: 'CONFLICT', target: 'id' }],
    ['a missing record', prismaError('P2025'), { code: 'NOT_FOUND' }],
    [
      'an agent held by another change past the lock timeout',
      new RegistryError(RegistryErrorCode.Busy, 'held', { agentId: 'a', lockTimeoutMs: 3000 }),
      { code: 'SERVICE_UNAVAILABLE', reason: 'REGISTRY_BUSY', retriable: true, agentId: 'a' },
    ],
    [
      'a transaction that outlived its timeout (P2028, rolled back)',
      prismaError('P2028'),
      { code: 'SERVICE_UNAVAILABLE', reason: 'TRANSACTION_TIMEOUT', retriable: true },
    ],
  ])('maps %s', (_name, error, extensions) => {
    expect(run(error).extensions).toMatchObject(extensions);
  });

  it.each([
    ['an unreachable server (P1001)', prismaError('P1001')],
    ['a pool timeout (P2024)', prismaError('P2024')],
    [
      'a raw query the adapter could not send',
      prismaError('P2010', {
        driverAdapterError: { name: 'DriverAdapterError', cause: { kind: 'DatabaseNotReachable', host: 'h', port: 1 } },
      }),
    ],
    ['a failed connect', new Prisma.PrismaClientInitializationError('cannot connect', '7')],
    [
      'a refused socket under a wrapper',
      new Error('wrapped', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) }),
    ],
    [
      'PostgreSQL shutting down (57P01)',
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    ],
  ])('answers SERVICE_UNAVAILABLE, retriable and without an error id, for %s', (_name, error) => {
    const before = logged.length;
    const out = run(error);
    expect(out.extensions).toEqual({ code: 'SERVICE_UNAVAILABLE', retriable: true });
    expect(out.message).toBe('the registry database is unavailable; retry later');
    expect(logged).toHaveLength(before);
  });

  it.each([
    ['a missing database (P1003: configuration, not an outage)', prismaError('P1003')],
    ['a constraint the adapter reports', prismaError('P2010', { driverAdapterError: { cause: { kind: 'CheckViolation' } } })],
  ])('keeps %s an internal error', (_name, error) => {
    expect(run(error).extensions).toMatchObject({ code: 'INTERNAL_SERVER_ERROR' });
  });

  it.each([
    [
      'NUL in text, as @prisma/adapter-pg reports it (22021)',
      prismaError('P2010', {
        driverAdapterError: {
          cause: { originalCode: '22021', originalMessage: 'invalid byte sequence for encoding "UTF8": 0x00', kind: 'postgres' },
        },
      }),
    ],
    [
      'NUL in jsonb, as pg reports it (22P05)',
      Object.assign(new Error('unsupported Unicode escape sequence'), { code: '22P05', severity: 'ERROR' }),
    ],
    ['NUL under a wrapper', new Error('SELECT * FROM "Agent" failed', { cause: Object.assign(new Error('x'), { code: '22021' }) })],
  ])('answers %s BAD_USER_INPUT without the database text, unlogged', (_name, error) => {
    const before = logged.length;
    const out = run(error);
    expect(out.extensions).toEqual({ code: 'BAD_USER_INPUT', reason: 'UNSTORABLE_TEXT' });
    expect(out.message).toMatch(/NUL/);
    expect(out.message).not.toMatch(/UTF8|0x00|SELECT|escape/);
    expect(logged).toHaveLength(before);
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
