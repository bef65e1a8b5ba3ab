import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, Kind, visit, type ASTNode, type DocumentNode } from 'graphql';
import type { ValidationIssue } from '@cp/capabilities';
import { ApiErrorCode } from '../errors';

export const NUL_MESSAGE = 'must not contain NUL characters (U+0000)';
/** Enough to show the caller the pattern; a payload of a million NULs is not walked to the end. */
export const MAX_NUL_ISSUES = 20;
/** A path in the answer is at most this long: deep or huge keys are elided in the middle. */
export const MAX_PATH_CHARS = 200;

const shown = (path: string) =>
  path.length <= MAX_PATH_CHARS ? path : `${path.slice(0, MAX_PATH_CHARS / 2)}…${path.slice(-MAX_PATH_CHARS / 2)}`;

/**
 * PostgreSQL text and jsonb cannot hold U+0000 (SQLSTATE 22021 / 22P05). A string argument
 * holding one is refused before any resolver runs, for every field at once: in the document's
 * literals (arguments, JSON literals, variable defaults) and in the variables, keys of JSON values
 * included. The answer is BAD_USER_INPUT, HTTP 400, naming each path. Other control characters
 * (tab, newline) are ordinary text here; the features that forbid them say so themselves.
 */
export function nulCharacterPlugin(): ApolloServerPlugin {
  // Apollo hands the same DocumentNode to every request with the same text: its literals are walked once.
  const literals = new WeakMap<DocumentNode, ValidationIssue[]>();
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document }) {
          let inDocument = literals.get(document);
          if (!inDocument) literals.set(document, (inDocument = nulInDocument(document)));
          const issues = [...inDocument, ...nulInVariables(request.variables)].slice(0, MAX_NUL_ISSUES);
          if (issues.length === 0) return;
          throw new GraphQLError(`invalid input: ${issues.length} problem(s), first: ${issues[0].path} ${issues[0].message}`, {
            extensions: { code: ApiErrorCode.BadUserInput, reason: 'NUL_CHARACTER', validationErrors: issues, http: { status: 400 } },
          });
        },
      };
    },
  };
}

/** NUL in the variables' values and object keys: `$input.manifest.skill.tags[1]`. Iterative: nesting depth cannot overflow the stack. */
export function nulInVariables(variables: Readonly<Record<string, unknown>> | undefined | null): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (!variables) return issues;
  const stack: { value: unknown; path: string }[] = Object.entries(variables)
    .map(([name, value]) => ({ value, path: `$${name}` }))
    .reverse();
  while (stack.length > 0 && issues.length < MAX_NUL_ISSUES) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) issues.push({ path: shown(path), message: NUL_MESSAGE });
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: `${path}[${i}]` });
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value as Record<string, unknown>);
      if (entries.some(([key]) => key.includes('\u0000'))) issues.push({ path: shown(path), message: `${NUL_MESSAGE} in a key` });
      // A key is echoed in a path: never with the NUL itself.
      for (let i = entries.length - 1; i >= 0; i--)
        stack.push({ value: entries[i][1], path: `${path}.${entries[i][0].replaceAll('\u0000', '\\u0000')}` });
    }
  }
  return issues;
}

/**
 * NUL in the document's string literals, each named by where it sits: `manifests(filter.agentId)`,
 * `agents.nodes.manifests(filter.tags[0])`, `$a (default)`. Object field names and enum values
 * are GraphQL names and cannot hold one.
 */
export function nulInDocument(document: DocumentNode): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  visit(document, {
    StringValue(node, _key, parent, path, ancestors) {
      // graphql-js's ancestors stop before the parent.
      if (issues.length < MAX_NUL_ISSUES && node.value.includes('\u0000') && parent)
        issues.push({ path: shown(literalPath([...ancestors, parent, node], path)), message: NUL_MESSAGE });
    },
  });
  return issues;
}

/** `entries[i]` is reached from the document by `keys.slice(0, i)`; `keys[i]` leads on from entries[i]. */
function literalPath(entries: readonly (ASTNode | readonly ASTNode[])[], keys: readonly (string | number)[]): string {
  const fields: string[] = [];
  let argument = '';
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (Array.isArray(entry)) {
      const owner = entries[i - 1] as ASTNode | undefined;
      if (owner?.kind === Kind.LIST) argument += `[${keys[i]}]`;
      continue;
    }
    const node = entry as ASTNode;
    if (node.kind === Kind.FIELD) {
      fields.push(node.name.value);
    } else if (node.kind === Kind.DIRECTIVE) {
      fields.push(`@${node.name.value}`);
    } else if (node.kind === Kind.ARGUMENT) {
      argument = node.name.value;
    } else if (node.kind === Kind.OBJECT_FIELD) {
      argument += `.${node.name.value}`;
    } else if (node.kind === Kind.VARIABLE_DEFINITION) {
      return `$${node.variable.name.value} (default)`;
    }
  }
  return `${fields.join('.')}(${argument})`;
}
