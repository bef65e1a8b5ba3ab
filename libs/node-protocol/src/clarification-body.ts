import { z } from 'zod';

export const MAX_CLARIFICATION_TEXT = 2000;
export const MAX_CLARIFICATIONS_PER_REPORT = 100;

/** The body of POST /node/v1/clarifications: choices callers made when asked which capability they meant. */
export const clarificationBatchSchema = z.strictObject({
  choices: z
    .array(
      z.strictObject({
        text: z
          .string()
          .trim()
          .min(1, 'must not be empty')
          .max(MAX_CLARIFICATION_TEXT, `must be at most ${MAX_CLARIFICATION_TEXT} characters`)
          // PostgreSQL text cannot hold NUL: refused here, not a database error (issue 31).
          .refine((t) => !t.includes('\u0000'), 'must not contain NUL characters'),
        capabilityId: z.string().min(1).max(200),
        tenant: z.string().min(1).max(200),
      }),
    )
    .min(1, 'must hold at least one choice')
    .max(MAX_CLARIFICATIONS_PER_REPORT, `at most ${MAX_CLARIFICATIONS_PER_REPORT} choices per request`),
});

export type ClarificationBatch = z.infer<typeof clarificationBatchSchema>;
