export enum ToolErrorCode {
  UnknownTool = 'TOOL_UNKNOWN',
  NoCallerCredential = 'TOOL_NO_CALLER_CREDENTIAL',
  ExchangeRefused = 'TOOL_EXCHANGE_REFUSED',
  ExchangeUnavailable = 'TOOL_EXCHANGE_UNAVAILABLE',
}

/** A tool call the gateway refused or could not make; handlers may catch it and fail the task. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
  constructor(
    readonly code: ToolErrorCode,
    message: string,
  ) {
    super(message);
  }
}
