export { ToolGateway } from './tool-gateway';
export type { ToolImplementation, ToolInvoker, ToolCallLog } from './tool-gateway';
export { HttpTokenExchanger } from './token-exchange-client';
export type { TokenExchanger, ExchangedToken } from './token-exchange-client';
export { ToolError, ToolErrorCode } from './tool-errors';
