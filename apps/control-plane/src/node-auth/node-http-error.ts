import type { ValidationIssue } from '@cp/capabilities';

/**
 * A refusal of a /node/v1 endpoint. Every feature's error extends it with its own code enum and
 * status map, and every one answers in the node API's one shape: `{ error: { code, message, issues? } }`
 * (see node-api-answer.ts, the one place that turns any error into that answer).
 */
export abstract class NodeHttpError<C extends string = string> extends Error {
  constructor(
    readonly code: C,
    message: string,
    readonly issues?: ValidationIssue[],
  ) {
    super(message);
  }

  abstract get status(): number;

  toJSON(): { error: { code: C; message: string; issues?: ValidationIssue[] } } {
    return { error: { code: this.code, message: this.message, ...(this.issues ? { issues: this.issues } : {}) } };
  }
}

/** A body that is not what the route takes: 400 INVALID_REQUEST on every route, issues naming each problem. */
export class NodeInputError extends NodeHttpError<'INVALID_REQUEST'> {
  override readonly name = 'NodeInputError';
  constructor(message: string, issues: ValidationIssue[]) {
    super('INVALID_REQUEST', message, issues);
  }
  get status(): number {
    return 400;
  }
}
