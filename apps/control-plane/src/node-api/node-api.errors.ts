import { NodeHttpError } from '../node-auth/node-http-error';

export enum NodeApiErrorCode {
  Unauthenticated = 'UNAUTHENTICATED',
  InvalidRequest = 'INVALID_REQUEST',
  AgentNotFound = 'AGENT_NOT_FOUND',
  BundleUnavailable = 'BUNDLE_UNAVAILABLE',
}

export const NODE_API_STATUS: Record<NodeApiErrorCode, number> = {
  [NodeApiErrorCode.Unauthenticated]: 401,
  [NodeApiErrorCode.InvalidRequest]: 400,
  [NodeApiErrorCode.AgentNotFound]: 404,
  [NodeApiErrorCode.BundleUnavailable]: 503,
};

/** An answer of the node API: `{ error: { code, message } }` with the code's HTTP status. */
export class NodeApiError extends NodeHttpError<NodeApiErrorCode> {
  override readonly name = 'NodeApiError';
  get status(): number {
    return NODE_API_STATUS[this.code];
  }
}
