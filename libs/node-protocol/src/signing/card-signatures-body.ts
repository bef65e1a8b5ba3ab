/**
 * POST /node/v1/card-signatures (ADR 0132): a node asks for the signatures of the extended card
 * of one entitlement class it computed lazily (past the bundle's class limit). It names only the
 * revision and the class; the control plane recomputes the card from that revision's snapshot and
 * signs what it computed, never bytes the node sends, so a node token is no signing oracle.
 * With `catalog: true` the answer also carries `catalogSignature`, the signature of that class's
 * node AI Catalog, recomputed the same way (ADR 0315); nodes that do not ask never see the member.
 */
import { z } from 'zod';
import type { AgentCardSignature } from './card-signature';

/** Class keys are short canonical JSON (`{"preview":…,"scopes":[…],"tenant":"…"}`); anything longer is not one. */
export const MAX_CLASS_KEY_LENGTH = 4096;

export const cardSignaturesBodySchema = z
  .object({
    revision: z.number().int().min(0).max(2_147_483_647),
    classKey: z.string().min(1).max(MAX_CLASS_KEY_LENGTH),
    /** Also the class's node catalog signature (ADR 0315). */
    catalog: z.literal(true).optional(),
  })
  .strict();

export type CardSignaturesBody = z.infer<typeof cardSignaturesBodySchema>;

const signatureSchema = z
  .object({
    protected: z.string().min(1).max(4096),
    signature: z.string().min(1).max(4096),
  })
  .strict();

/** The answer: the class's card signatures (same shape as a card's `signatures`), made with key `kid`. */
export const cardSignaturesResultSchema = z
  .object({
    revision: z.number().int().min(0),
    classKey: z.string(),
    kid: z.string(),
    signatures: z.array(signatureSchema).min(1).max(8),
    /** The class's node catalog `metadata.signature`, when asked for and the bundle carries the catalog's parameters. */
    catalogSignature: z.string().min(1).max(8192).optional(),
  })
  .strict();

export interface CardSignaturesResult {
  revision: number;
  classKey: string;
  kid: string;
  signatures: AgentCardSignature[];
  catalogSignature?: string;
}
