import { ClientError, GraphQLClient } from 'graphql-request';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';

/** One problem the API named, at a path into what was sent (validator problems carry theirs). */
export interface ApiProblem {
  path: string;
  message: string;
}

/** An API error as the console shows it: the API's code and message, never a stack or a raw blob. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly code: string,
    message: string,
    readonly problems: ApiProblem[] = [],
    readonly extensions: Record<string, unknown> = {},
    readonly status?: number,
  ) {
    super(message);
  }

  /** The API refused a change made against an older revision (someone else changed the agent). */
  get stale(): boolean {
    return this.code === 'CONFLICT' && typeof this.extensions.currentRevision === 'number';
  }
}

type ErrorEntry = { message?: unknown; extensions?: Record<string, unknown> };

function problemsOf(extensions: Record<string, unknown>): ApiProblem[] {
  const list = extensions.validationErrors;
  if (!Array.isArray(list)) return [];
  return list
    .filter((p): p is { path: unknown; message: unknown } => typeof p === 'object' && p !== null)
    .map((p) => ({
      path: typeof p.path === 'string' ? p.path : '$',
      message: typeof p.message === 'string' ? p.message : String(p.message),
    }));
}

/** graphql-request's errors (GraphQL errors, HTTP errors, network failures) as one ApiError. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ClientError) {
    const entries = (error.response.errors ?? []) as ErrorEntry[];
    const first = entries[0];
    if (first) {
      const extensions = first.extensions ?? {};
      const code = typeof extensions.code === 'string' ? extensions.code : 'ERROR';
      const message = typeof first.message === 'string' ? first.message : 'the API answered an error';
      return new ApiError(code, message, problemsOf(extensions), extensions, error.response.status);
    }
    return new ApiError(`HTTP_${error.response.status}`, `the API answered HTTP ${error.response.status}`, [], {}, error.response.status);
  }
  if (error instanceof Error && error.name === 'AbortError') return new ApiError('ABORTED', 'the request was cancelled');
  const message = error instanceof Error ? error.message : String(error);
  return new ApiError('NETWORK', `the control plane could not be reached (${message})`);
}

export type TokenSource = () => string | null;

/** A typed GraphQL client on /graphql that sends the session's bearer token. */
export class Api {
  private readonly client: GraphQLClient;

  constructor(endpoint: string, token: TokenSource) {
    this.client = new GraphQLClient(endpoint, {
      headers: (): Record<string, string> => {
        const t = token();
        return t ? { authorization: `Bearer ${t}` } : {};
      },
    });
  }

  async request<T, V extends Record<string, unknown>>(document: TypedDocumentNode<T, V>, variables: V): Promise<T> {
    try {
      return await this.client.request<T, V>({ document, variables } as never);
    } catch (error) {
      throw toApiError(error);
    }
  }
}
