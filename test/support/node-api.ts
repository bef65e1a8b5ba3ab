/** The control plane's node API as a node calls it, for suites that play the node themselves. */
import { mintNodeToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';

/** POST /node/v1/register as a node of `agentId` (its node token minted from `config`). */
export function registerNode(url: string, config: AppConfig, agentId: string, nodeId: string): Promise<Response> {
  return fetch(`${url}/node/v1/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${mintNodeToken(config, agentId)}` },
    body: JSON.stringify({ nodeId }),
  });
}
