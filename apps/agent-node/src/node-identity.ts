import { mintNodeToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { nodeSyncOptionsFromConfig } from '@cp/node-sdk';

/** The node's id and own credential, shared by sync, usage reporting and the tool gateway. */
export interface NodeIdentity {
  nodeId: string;
  /** Only the gateway and the reporter ever hold this; handlers never see it. */
  nodeToken: string;
}
export const NodeIdentityToken = Symbol('NODE_IDENTITY');

export function nodeIdentity(config: AppConfig): NodeIdentity {
  // Same rules as NodeSync: NODE_TOKEN, or a token minted from JWT_SECRET outside production.
  const o = nodeSyncOptionsFromConfig(config, { mint: (c, agentId) => mintNodeToken(c, agentId, 30 * 24 * 3600) });
  return { nodeId: o.nodeId, nodeToken: o.nodeToken };
}
