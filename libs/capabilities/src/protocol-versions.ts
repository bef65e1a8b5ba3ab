import { z } from 'zod';

/**
 * The A2A versions an agent's nodes serve (ADRs 0160, 0165): "1.0" always, "0.3" beside it. One
 * rule for the admin API and for cpctl's agent.yaml.
 */
export const protocolVersionsSchema = z
  .array(z.enum(['1.0', '0.3'], { error: 'must be "1.0" or "0.3" (the A2A versions agent nodes serve)' }))
  .refine((v) => v.includes('1.0'), 'must include "1.0": nodes always serve 1.0 and serve 0.3 beside it')
  .refine((v) => new Set(v).size === v.length, 'versions must be unique');
