import { randomUUID } from 'node:crypto';
import { HttpException } from '@nestjs/common';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { AuthError } from '@cp/auth';
import { Prisma, RegistryError, RegistryErrorCode } from '@cp/db';
import { RetirementError, RetirementErrorCode } from '@cp/jobs';
import { ApiErrorCode } from './api-error-code';
import { isDatabaseUnavailable } from './database-unavailable';
import { DomainError } from './domain-error';

export interface ErrorLogger {
  error(message: string, error: unknown): void;
}

type Extensions = Record<string, unknown> & { code: string };
type Mapped = { message: string; extensions: Extensions } | undefined;

const HTTP_CODES: Record<number, ApiErrorCode> = {
  400: ApiErrorCode.BadUserInput,
  401: ApiErrorCode.Unauthenticated,
  403: ApiErrorCode.Forbidden,
  404: ApiErrorCode.NotFound,
  409: ApiErrorCode.Conflict,
  413: ApiErrorCode.PayloadTooLarge,
};

/** Known error types → the API's answer; undefined means "unknown: hide it". */
export function mapKnownError(error: unknown): Mapped {
  if (isDatabaseUnavailable(error)) {
    return {
      message: 'the registry database is unavailable; retry later',
      extensions: { code: ApiErrorCode.ServiceUnavailable, retriable: true },
    };
  }
  if (error instanceof DomainError) {
    return { message: error.message, extensions: { ...error.extensions, code: error.apiCode, reason: error.code } };
  }
  if (error instanceof RegistryError && error.code === RegistryErrorCode.Busy) {
    return {
      message: error.message,
      extensions: { ...error.details, code: ApiErrorCode.ServiceUnavailable, reason: error.code, retriable: true },
    };
  }
  if (error instanceof RegistryError) {
    const code = error.code === RegistryErrorCode.StaleRevision ? ApiErrorCode.Conflict : ApiErrorCode.NotFound;
    const details = error.code === RegistryErrorCode.AgentNotFound ? { type: 'agent', id: error.details.agentId } : error.details;
    // An unknown agent reads exactly like every other NOT_FOUND (same message shape as notFound()).
    const message = error.code === RegistryErrorCode.AgentNotFound ? `agent "${String(error.details.agentId)}" not found` : error.message;
    return { message, extensions: { ...details, code, reason: error.code } };
  }
  if (error instanceof RetirementError) {
    // Its one code: the agent went away between the access check and the plan; reads like notFound().
    const id = String(error.details.agentId);
    const code: Record<RetirementErrorCode, ApiErrorCode> = { [RetirementErrorCode.AgentNotFound]: ApiErrorCode.NotFound };
    return { message: `agent "${id}" not found`, extensions: { type: 'agent', id, code: code[error.code], reason: error.code } };
  }
  if (error instanceof AuthError) {
    return { message: error.message, extensions: { code: ApiErrorCode.Unauthenticated, reason: error.code } };
  }
  if (isUnstorableText(error)) {
    // Text PostgreSQL cannot hold (NUL) that got past nulCharacterPlugin: the caller's input, not a
    // fault. The SQL and the driver's message stay out of the answer.
    return {
      message: 'invalid input: a string holds a character the registry cannot store (NUL, U+0000)',
      extensions: { code: ApiErrorCode.BadUserInput, reason: 'UNSTORABLE_TEXT' },
    };
  }
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    if (error.code === 'P2002') {
      return {
        message: `already exists (unique ${uniqueTarget(error)})`,
        extensions: { code: ApiErrorCode.Conflict, reason: 'UNIQUE_VIOLATION', target: uniqueTarget(error) },
      };
    }
    if (error.code === 'P2028') {
      // The interactive transaction outlived its timeout (it was rolled back): retryable, not a fault.
      return {
        message: 'the change did not finish within the transaction timeout; nothing was written: retry',
        extensions: { code: ApiErrorCode.ServiceUnavailable, reason: 'TRANSACTION_TIMEOUT', retriable: true },
      };
    }
    if (error.code === 'P2025') return { message: 'not found', extensions: { code: ApiErrorCode.NotFound, reason: 'RECORD_NOT_FOUND' } };
    return undefined;
  }
  if (error instanceof HttpException && HTTP_CODES[error.getStatus()]) {
    return { message: error.message, extensions: { code: HTTP_CODES[error.getStatus()] } };
  }
  return undefined;
}

/**
 * SQLSTATE 22021 (invalid byte sequence: NUL in text) or 22P05 (untranslatable character: \u0000
 * in jsonb), as pg reports it, as @prisma/adapter-pg wraps it (meta.driverAdapterError.cause), or
 * under an Error's cause.
 */
const UNSTORABLE_SQLSTATES = new Set(['22021', '22P05']);
export function isUnstorableText(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 5) return false;
  const { code, cause, meta, originalCode } = error as { code?: unknown; cause?: unknown; meta?: unknown; originalCode?: unknown };
  if (typeof originalCode === 'string' && UNSTORABLE_SQLSTATES.has(originalCode)) return true;
  // pg's DatabaseError, or the adapter's cause of kind `postgres` (Prisma's own codes are P-codes: no clash).
  if (typeof code === 'string' && UNSTORABLE_SQLSTATES.has(code)) return true;
  const adapter = (meta as { driverAdapterError?: unknown } | undefined)?.driverAdapterError;
  return isUnstorableText(adapter, depth + 1) || isUnstorableText(cause, depth + 1);
}

function uniqueTarget(error: Prisma.PrismaClientKnownRequestError): string {
  const meta = error.meta as { target?: unknown; driverAdapterError?: { cause?: { constraint?: { fields?: string[] } } } } | undefined;
  const fields = meta?.target ?? meta?.driverAdapterError?.cause?.constraint?.fields;
  return Array.isArray(fields) ? fields.join(', ') : typeof fields === 'string' ? fields : 'constraint';
}

/**
 * Apollo's `formatError`: every error leaves with `extensions.code`. Errors the code raised on
 * purpose keep their message; anything else is replaced by a generic message and an `errorId`
 * that is logged with the real error, so internals never reach the caller.
 */
export function createErrorFormatter(logger: ErrorLogger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = error instanceof GraphQLError ? error.originalError : error;
    // Errors of the GraphQL layer itself (parse, validation, variable coercion, the limits) are the
    // caller's: they keep Apollo's code (GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED,
    // BAD_USER_INPUT), or QUERY_TOO_COMPLEX for a limit, and are never logged.
    if (!original || original instanceof GraphQLError)
      return { ...formatted, extensions: { ...formatted.extensions, ...graphQLLayerCode(formatted) } };
    const mapped = mapKnownError(original);
    if (mapped) return { message: mapped.message, locations: formatted.locations, path: formatted.path, extensions: mapped.extensions };
    const errorId = randomUUID();
    logger.error(`unhandled error ${errorId} at ${formatted.path?.join('.') ?? '(operation)'}`, original);
    return {
      message: `internal error (errorId ${errorId})`,
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code: ApiErrorCode.Internal, errorId },
    };
  };
}

const LIMIT_REASONS = new Set(['DEPTH_LIMIT', 'COMPLEXITY_LIMIT', 'ALIAS_LIMIT', 'ROOT_FIELD_LIMIT', 'INTROSPECTION_LIMIT', 'NODE_LIMIT']);
/** graphql-js's parser stops at `maxTokens` with a syntax error of this wording. */
const TOKEN_LIMIT = /^Syntax Error: Document contains more th(?:an|at) (\d+) tokens/;

function graphQLLayerCode(formatted: GraphQLFormattedError): Record<string, unknown> & { code: string } {
  // Apollo relabels every validation-rule error GRAPHQL_VALIDATION_FAILED; our limit rules keep their own code.
  if (LIMIT_REASONS.has(formatted.extensions?.reason as string)) return { code: ApiErrorCode.QueryTooComplex };
  const tokens = TOKEN_LIMIT.exec(formatted.message);
  if (tokens) return { code: ApiErrorCode.QueryTooComplex, reason: 'TOKEN_LIMIT', maxTokens: Number(tokens[1]) };
  const code = formatted.extensions?.code;
  return { code: typeof code === 'string' && code !== ApiErrorCode.Internal ? code : ApiErrorCode.BadUserInput };
}
