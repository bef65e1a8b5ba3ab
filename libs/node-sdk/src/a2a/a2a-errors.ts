/**
 * Every error an A2A endpoint answers with, mapped once to its JSON-RPC code, HTTP status,
 * google.rpc status and ErrorInfo reason (A2A 1.0 §5.4, §9.5, §11.6).
 */
export enum A2AErrorName {
  TaskNotFound = 'TaskNotFoundError',
  TaskNotCancelable = 'TaskNotCancelableError',
  PushNotificationNotSupported = 'PushNotificationNotSupportedError',
  UnsupportedOperation = 'UnsupportedOperationError',
  ContentTypeNotSupported = 'ContentTypeNotSupportedError',
  InvalidAgentResponse = 'InvalidAgentResponseError',
  ExtendedAgentCardNotConfigured = 'ExtendedAgentCardNotConfiguredError',
  ExtensionSupportRequired = 'ExtensionSupportRequiredError',
  VersionNotSupported = 'VersionNotSupportedError',
  // JSON-RPC 2.0 standard errors.
  ParseError = 'ParseError',
  InvalidRequest = 'InvalidRequest',
  MethodNotFound = 'MethodNotFound',
  InvalidParams = 'InvalidParams',
  Internal = 'InternalError',
  // Transport-level, outside the A2A error table.
  Unauthenticated = 'Unauthenticated',
  PayloadTooLarge = 'PayloadTooLarge',
  Unavailable = 'Unavailable',
  /** Over a rate budget or a concurrency limit (issue 14): answered with Retry-After. */
  RateLimited = 'RateLimited',
}

interface Mapping {
  jsonRpc: number;
  http: number;
  /** google.rpc.Code name, for the REST body's `status`. */
  status: string;
  reason: string;
}

// Unauthenticated, PayloadTooLarge and Unavailable use -32000 (JSON-RPC's implementation-defined
// server-error range, below A2A's -32001..-32099); the ErrorInfo reason tells them apart.
export const A2A_ERRORS: Record<A2AErrorName, Mapping> = {
  [A2AErrorName.TaskNotFound]: { jsonRpc: -32001, http: 404, status: 'NOT_FOUND', reason: 'TASK_NOT_FOUND' },
  [A2AErrorName.TaskNotCancelable]: { jsonRpc: -32002, http: 400, status: 'FAILED_PRECONDITION', reason: 'TASK_NOT_CANCELABLE' },
  [A2AErrorName.PushNotificationNotSupported]: {
    jsonRpc: -32003,
    http: 400,
    status: 'FAILED_PRECONDITION',
    reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
  },
  [A2AErrorName.UnsupportedOperation]: { jsonRpc: -32004, http: 400, status: 'FAILED_PRECONDITION', reason: 'UNSUPPORTED_OPERATION' },
  [A2AErrorName.ContentTypeNotSupported]: { jsonRpc: -32005, http: 400, status: 'INVALID_ARGUMENT', reason: 'CONTENT_TYPE_NOT_SUPPORTED' },
  [A2AErrorName.InvalidAgentResponse]: { jsonRpc: -32006, http: 500, status: 'INTERNAL', reason: 'INVALID_AGENT_RESPONSE' },
  [A2AErrorName.ExtendedAgentCardNotConfigured]: {
    jsonRpc: -32007,
    http: 400,
    status: 'FAILED_PRECONDITION',
    reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
  },
  [A2AErrorName.ExtensionSupportRequired]: {
    jsonRpc: -32008,
    http: 400,
    status: 'FAILED_PRECONDITION',
    reason: 'EXTENSION_SUPPORT_REQUIRED',
  },
  [A2AErrorName.VersionNotSupported]: { jsonRpc: -32009, http: 400, status: 'FAILED_PRECONDITION', reason: 'VERSION_NOT_SUPPORTED' },
  [A2AErrorName.ParseError]: { jsonRpc: -32700, http: 400, status: 'INVALID_ARGUMENT', reason: 'PARSE_ERROR' },
  [A2AErrorName.InvalidRequest]: { jsonRpc: -32600, http: 400, status: 'INVALID_ARGUMENT', reason: 'INVALID_REQUEST' },
  [A2AErrorName.MethodNotFound]: { jsonRpc: -32601, http: 404, status: 'NOT_FOUND', reason: 'METHOD_NOT_FOUND' },
  [A2AErrorName.InvalidParams]: { jsonRpc: -32602, http: 400, status: 'INVALID_ARGUMENT', reason: 'INVALID_PARAMS' },
  [A2AErrorName.Internal]: { jsonRpc: -32603, http: 500, status: 'INTERNAL', reason: 'INTERNAL' },
  [A2AErrorName.Unauthenticated]: { jsonRpc: -32000, http: 401, status: 'UNAUTHENTICATED', reason: 'UNAUTHENTICATED' },
  [A2AErrorName.PayloadTooLarge]: { jsonRpc: -32000, http: 413, status: 'RESOURCE_EXHAUSTED', reason: 'PAYLOAD_TOO_LARGE' },
  [A2AErrorName.Unavailable]: { jsonRpc: -32000, http: 503, status: 'UNAVAILABLE', reason: 'NODE_NOT_READY' },
  [A2AErrorName.RateLimited]: { jsonRpc: -32000, http: 429, status: 'RESOURCE_EXHAUSTED', reason: 'RATE_LIMITED' },
};

/** The ErrorInfo domain of the reasons A2A itself defines (A2A 1.0 §9.5, §11.6). */
export const ERROR_DOMAIN = 'a2a-protocol.org';
/**
 * The domain of this product's own reasons (TOKEN_EXPIRED, CAPABILITY_REMOVED, RATE_LIMITED,
 * PARSE_ERROR, …): a caller can tell a protocol error from a node policy by the domain (ADR 0161).
 */
export const NODE_ERROR_DOMAIN = 'capability-control-plane';

/** The reasons A2A defines: its nine error types in UPPER_SNAKE_CASE without "Error". */
export const A2A_DEFINED_REASONS: ReadonlySet<string> = new Set([
  'TASK_NOT_FOUND',
  'TASK_NOT_CANCELABLE',
  'PUSH_NOTIFICATION_NOT_SUPPORTED',
  'UNSUPPORTED_OPERATION',
  'CONTENT_TYPE_NOT_SUPPORTED',
  'INVALID_AGENT_RESPONSE',
  'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
  'EXTENSION_SUPPORT_REQUIRED',
  'VERSION_NOT_SUPPORTED',
]);

export const errorDomainOf = (reason: string): string => (A2A_DEFINED_REASONS.has(reason) ? ERROR_DOMAIN : NODE_ERROR_DOMAIN);

export class A2AError extends Error {
  constructor(
    readonly kind: A2AErrorName,
    message: string,
    /** ErrorInfo metadata: string values only (google.rpc.ErrorInfo). */
    readonly metadata: Record<string, string> = {},
    /** A more specific ErrorInfo reason than the kind's (e.g. TOKEN_EXPIRED, CAPABILITY_REMOVED). */
    readonly reason?: string,
  ) {
    super(message);
    this.name = kind;
  }

  get mapping(): Mapping {
    return A2A_ERRORS[this.kind];
  }

  errorInfo(): { '@type': string; reason: string; domain: string; metadata: Record<string, string> } {
    const reason = this.reason ?? this.mapping.reason;
    return { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: errorDomainOf(reason), metadata: this.metadata };
  }

  /** JSON-RPC `error` member: data is the 1.0 list of typed details. */
  toJsonRpc(): { code: number; message: string; data: unknown[] } {
    return { code: this.mapping.jsonRpc, message: this.message, data: [this.errorInfo()] };
  }

  /** REST body (AIP-193 google.rpc.Status). */
  toRest(): { error: { code: number; status: string; message: string; details: unknown[] } } {
    return { error: { code: this.mapping.http, status: this.mapping.status, message: this.message, details: [this.errorInfo()] } };
  }
}

export const a2aError = (kind: A2AErrorName, message: string, metadata?: Record<string, string>, reason?: string) =>
  new A2AError(kind, message, metadata, reason);
