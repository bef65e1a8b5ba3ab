import { z } from 'zod';
import { reportedText } from './text';

/**
 * POST /node/v1/token-exchange: the caller's a2a token and the capability being served, plus what
 * the token is for: a `tool` (kind "tool", the default) or the capability's upstream agent (kind
 * "upstream", ADR 0231: the audience comes from the registry's manifest, never from the node).
 */
export const tokenExchangeSchema = z
  .object({
    subjectToken: z.string().min(1, "the caller's a2a token is required"),
    kind: z.enum(['tool', 'upstream'], { error: 'must be "tool" or "upstream"' }).optional(),
    tool: z
      .string()
      .regex(/^[a-z][a-z0-9._-]{0,63}$/, 'must be a tool name')
      .optional(),
    capabilityId: reportedText(200),
  })
  .superRefine((body, ctx) => {
    if ((body.kind ?? 'tool') === 'tool' && body.tool === undefined)
      ctx.addIssue({ code: 'custom', path: ['tool'], message: 'is required for a tool token' });
    if (body.kind === 'upstream' && body.tool !== undefined)
      ctx.addIssue({ code: 'custom', path: ['tool'], message: 'must be absent for an upstream token' });
  });

export type TokenExchangeBody = z.infer<typeof tokenExchangeSchema>;

/** What POST /node/v1/token-exchange answers (200). */
export interface TokenExchangeResult {
  accessToken: string;
  tokenType: 'Bearer';
  issuedTokenType: 'urn:ietf:params:oauth:token-type:jwt';
  /** Seconds. */
  expiresIn: number;
  scopes: string[];
  /** The tool (kind "tool"); absent for an upstream token. */
  tool?: string;
  /** The upstream token's audience (kind "upstream"). */
  audience?: string;
}
