import { Prisma } from '@cp/db';
import { isDatabaseUnavailable } from './database-unavailable';

const known = (code: string, message: string) => new Prisma.PrismaClientKnownRequestError(message, { code, clientVersion: 'test' });

describe('isDatabaseUnavailable', () => {
  it('counts a transaction that could not start in time (pool exhausted) as unavailable: 503 + Retry-After, not 500', () => {
    expect(isDatabaseUnavailable(known('P2028', 'Transaction API error: Unable to start a transaction in the given time.'))).toBe(true);
    expect(isDatabaseUnavailable(known('P2024', 'Timed out fetching a new connection from the connection pool.'))).toBe(true);
  });

  it('does not count other transaction failures or request faults', () => {
    expect(isDatabaseUnavailable(known('P2028', 'Transaction API error: A commit cannot be executed on an expired transaction.'))).toBe(
      false,
    );
    expect(isDatabaseUnavailable(known('P2002', 'Unique constraint failed'))).toBe(false);
    expect(isDatabaseUnavailable(new Error('Unable to start a transaction in the given time'))).toBe(false);
  });
});
