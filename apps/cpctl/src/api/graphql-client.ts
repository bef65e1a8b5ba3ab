/**
 * A minimal GraphQL-over-HTTP client (Node's fetch): one POST per operation, bearer token, a
 * timeout, and every failure turned into a CpctlError whose code decides the exit code.
 */
import type { ValidationIssue } from '@cp/capabilities';
import { CpctlError, CpctlErrorCode } from '../cpctl.errors';

interface GraphQLErrorBody {
  message: string;
  extensions?: { code?: string; reason?: string; validationErrors?: ValidationIssue[]; [key: string]: unknown };
}

/** The API's extensions.code → what cpctl reports. BAD_USER_INPUT is decided per call (see `request`). */
const BY_CODE: Record<string, CpctlErrorCode> = {
  UNAUTHENTICATED: CpctlErrorCode.BadToken,
  FORBIDDEN: CpctlErrorCode.Forbidden,
  NOT_FOUND: CpctlErrorCode.NotFound,
  CONFLICT: CpctlErrorCode.StaleRevision,
};

const HINT: Partial<Record<CpctlErrorCode, string>> = {
  [CpctlErrorCode.BadToken]: 'check CPCTL_TOKEN: it must be an admin token the control plane accepts',
  [CpctlErrorCode.Forbidden]: "the token's roles or teams do not allow this on this agent",
};

export interface GraphQLClientOptions {
  url: string;
  token?: string;
  timeoutMs: number;
}

export class GraphQLClient {
  constructor(private readonly options: GraphQLClientOptions) {}

  get url(): string {
    return this.options.url;
  }

  /**
   * `badInput` says what a BAD_USER_INPUT means for this operation: the files were checked
   * locally first, so for apply it is the lifecycle refusing the change, not a syntax problem.
   */
  async request<T>(query: string, variables: Record<string, unknown>, badInput = CpctlErrorCode.InvalidFiles): Promise<T> {
    const { url, token, timeoutMs } = this.options;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ query, variables }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new CpctlError(CpctlErrorCode.Unreachable, `cannot reach the control plane at ${url}: ${networkReason(error, timeoutMs)}`);
    }
    const text = await response.text().catch(() => '');
    let body: { data?: T | null; errors?: GraphQLErrorBody[] };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new CpctlError(
        CpctlErrorCode.Unreachable,
        `${url} answered HTTP ${response.status} without a GraphQL response: is it the control plane's /graphql endpoint?`,
      );
    }
    const first = body.errors?.[0];
    if (first) {
      const code = codeOf(first, badInput);
      const hint = HINT[code];
      throw new CpctlError(code, hint ? `${first.message} (${hint})` : first.message, first.extensions?.validationErrors ?? []);
    }
    if (!response.ok || body.data === undefined || body.data === null) {
      throw new CpctlError(CpctlErrorCode.ServerError, `${url} answered HTTP ${response.status} with no data`);
    }
    return body.data;
  }
}

function codeOf(error: GraphQLErrorBody, badInput: CpctlErrorCode): CpctlErrorCode {
  const code = error.extensions?.code ?? '';
  if (code === 'BAD_USER_INPUT') return badInput;
  // CONFLICT also means "already exists"; only a revision mismatch is a stale plan.
  if (code === 'CONFLICT') {
    const reason = error.extensions?.reason;
    // A change request planned at a revision the agent moved past is a stale plan too (ADR 0300).
    if (reason === 'STALE_REVISION' || reason === 'STALE_PLAN') return CpctlErrorCode.StaleRevision;
    return reason === 'NOT_PENDING' ? CpctlErrorCode.NotPending : CpctlErrorCode.ServerError;
  }
  return BY_CODE[code] ?? CpctlErrorCode.ServerError;
}

function networkReason(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const code = e.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused (is it running? set --url or CPCTL_URL)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found (check --url or CPCTL_URL)';
  return e.cause?.message ?? code ?? e.message ?? 'network error';
}
