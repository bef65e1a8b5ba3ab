import type { z } from 'zod';
import type { ValidationIssue } from '@cp/capabilities';
import { jsonPathOf } from '../common/errors/validate-input';
import { NodeInputError } from './node-http-error';

/**
 * The one input validation of the node API: a zod schema of @cp/node-protocol, every problem
 * named as `{ path, message }` with the one JSON-path format (`$.counts[0].tenant`).
 */
export function parseNodeBody<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw invalidNodeBody(
    what,
    parsed.error.issues.map((issue) => ({ path: jsonPathOf(issue.path), message: issue.message })),
  );
}

/** Problems found after parsing (a window in the future, an unknown tenant), in the same answer. */
export function invalidNodeBody(what: string, issues: ValidationIssue[]): NodeInputError {
  return new NodeInputError(`invalid ${what}: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
}
