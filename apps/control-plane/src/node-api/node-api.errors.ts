import { NodeHttpError } from '../node-auth/node-http-error';

export enum NodeApiErrorCode {
  AgentNotFound = 'AGENT_NOT_FOUND',
  BundleUnavailable = 'BUNDLE_UNAVAILABLE',
  /** Too many bundle answers at once, or Redis reconnecting: 503 with Retry-After (ADR 0156). */
  Overloaded = 'OVERLOADED',
  /** A `bundle-delta-base` header that is not a bundle ETag. */
  InvalidDeltaBase = 'INVALID_DELTA_BASE',
  /** card-signatures: the classKey is not one of the agent's entitlement classes at that revision. */
  ClassNotFound = 'CLASS_NOT_FOUND',
  /** card-signatures: the revision is neither the current one nor still cached. */
  RevisionUnavailable = 'REVISION_NOT_AVAILABLE',
}

export const NODE_API_STATUS: Record<NodeApiErrorCode, number> = {
  [NodeApiErrorCode.AgentNotFound]: 404,
  [NodeApiErrorCode.BundleUnavailable]: 503,
  [NodeApiErrorCode.Overloaded]: 503,
  [NodeApiErrorCode.InvalidDeltaBase]: 400,
  [NodeApiErrorCode.ClassNotFound]: 404,
  [NodeApiErrorCode.RevisionUnavailable]: 409,
};

/** A refusal of register, heartbeat, ack or bundle (the node API's one shape, see node-api-answer.ts). */
export class NodeApiError extends NodeHttpError<NodeApiErrorCode> {
  override readonly name = 'NodeApiError';
  get status(): number {
    return NODE_API_STATUS[this.code];
  }
}
