/** The node API's paths: the control plane serves them, the node SDK calls them. */
export const NODE_API_PREFIX = '/node/v1';

export const nodeApiPaths = {
  register: `${NODE_API_PREFIX}/register`,
  heartbeat: `${NODE_API_PREFIX}/heartbeat`,
  bundle: `${NODE_API_PREFIX}/bundle`,
  ack: `${NODE_API_PREFIX}/ack`,
  usage: `${NODE_API_PREFIX}/usage`,
  tokenExchange: `${NODE_API_PREFIX}/token-exchange`,
  clarifications: `${NODE_API_PREFIX}/clarifications`,
  /** The signatures of one lazily computed class's extended card (ADR 0132). */
  cardSignatures: `${NODE_API_PREFIX}/card-signatures`,
} as const;
