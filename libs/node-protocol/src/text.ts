import { z } from 'zod';

/** Free text a node reports: no control characters (PostgreSQL text cannot hold NUL, logs must not take CR/LF). */
export const reportedText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[^\p{Cc}]*$/u, 'must not contain control characters');
