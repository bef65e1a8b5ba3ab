import { z } from 'zod';
import { reportedText } from './text';

/** POST /node/v1/token-exchange: the caller's a2a token, the tool, the capability being served. */
export const tokenExchangeSchema = z.object({
  subjectToken: z.string().min(1, "the caller's a2a token is required"),
  tool: z.string().regex(/^[a-z][a-z0-9._-]{0,63}$/, 'must be a tool name'),
  capabilityId: reportedText(200),
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
  tool: string;
}
