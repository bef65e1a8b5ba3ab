import { Prisma } from '@cp/db';

/**
 * Is this error "PostgreSQL cannot be reached right now" rather than a fault of the request or
 * of the code? Then the caller should retry later (SERVICE_UNAVAILABLE, HTTP 503), and no error
 * id is needed: /readyz already says postgres is down.
 */
const PRISMA_CODES = new Set([
  'P1001', // can't reach database server
  'P1002', // database server reached but timed out
  'P1008', // operations timed out
  'P1017', // server has closed the connection
  'P2024', // timed out fetching a connection from the pool
]);
// What @prisma/adapter-pg reports in meta.driverAdapterError.cause.kind.
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
// Node socket errors and PostgreSQL SQLSTATEs (class 08 connection exception, 57P01–57P03 shutdown / starting up, 53300 too many connections).
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN']);
const SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 5) return false;
  if (error instanceof Prisma.PrismaClientInitializationError) return true;
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    if (PRISMA_CODES.has(error.code)) return true;
    // P2028 is every interactive-transaction failure; only "could not start one in time" is the
    // pool being exhausted (a fleet's acks after a restart, issue 18), like P2024.
    if (error.code === 'P2028' && error.message.includes('Unable to start a transaction in the given time')) return true;
    const kind = (error.meta as { driverAdapterError?: { cause?: { kind?: unknown } } } | undefined)?.driverAdapterError?.cause?.kind;
    return typeof kind === 'string' && ADAPTER_KINDS.has(kind);
  }
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SQLSTATE.test(code))) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}
