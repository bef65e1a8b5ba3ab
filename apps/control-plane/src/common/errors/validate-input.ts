import type { z } from 'zod';
import type { ValidationIssue } from '@cp/capabilities';
import { InputValidationError } from './common.errors';

/** `$.a.b[2]` from a zod path. */
export function jsonPathOf(path: readonly PropertyKey[], prefix = '$'): string {
  return path.reduce<string>((acc, seg) => (typeof seg === 'number' ? `${acc}[${seg}]` : `${acc}.${String(seg)}`), prefix);
}

/** Parses a GraphQL input with its zod schema; throws one InputValidationError naming every problem. */
export function validateInput<S extends z.ZodType>(schema: S, value: unknown, prefix = '$'): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues: ValidationIssue[] = parsed.error.issues.map((issue) => ({ path: jsonPathOf(issue.path, prefix), message: issue.message }));
  throw new InputValidationError(issues);
}
