import { NodeHttpError } from '../node-auth/node-http-error';

export enum NodeApiErrorCode {
  AgentNotFound = 'AGENT_NOT_FOUND',
  BundleUnavailable = 'BUNDLE_UNAVAILABLE',
}

export const NODE_API_STATUS: Record<NodeApiErrorCode, number> = {
  [NodeApiErrorCode.AgentNotFound]: 404,
  [NodeApiErrorCode.BundleUnavailable]: 503,
};

/** A refusal of register, heartbeat, ack or bundle (the node API's one shape, see node-api-answer.ts). */
export class NodeApiError extends NodeHttpError<NodeApiErrorCode> {
  override readonly name = 'NodeApiError';
  get status(): number {
    return NODE_API_STATUS[this.code];
  }
}
