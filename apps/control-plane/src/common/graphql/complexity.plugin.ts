import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, type DocumentNode, type GraphQLSchema } from 'graphql';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';
import { ApiErrorCode } from '../errors';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './pagination';

/**
 * A list field (one that takes `page` or `first`) costs its children times the rows it returns:
 * the page size it asks for, or the default page size when it asks for none (that is what it
 * gets). Sizes beyond MAX_PAGE_SIZE are refused by the resolver, so they cost MAX_PAGE_SIZE rows.
 */
export const pageEstimator: ComplexityEstimator = ({ field, args, childComplexity }) => {
  if (!field.args.some((arg) => arg.name === 'page' || arg.name === 'first')) return undefined;
  const requested: unknown = (args.page as { first?: unknown } | undefined)?.first ?? args.first;
  const rows =
    typeof requested === 'number' && Number.isFinite(requested) ? Math.min(MAX_PAGE_SIZE, Math.max(1, requested)) : DEFAULT_PAGE_SIZE;
  return 1 + childComplexity * rows;
};

/**
 * Complexity limit (graphql-query-complexity) for every operation, whatever it is called: no
 * operation name is exempt. It runs once the operation is resolved rather than as a plain
 * validation rule because the cost depends on variables (`first: $n`), which Apollo's validation
 * rules do not see. It still refuses before any resolver runs. Introspection fields cost nothing
 * here (the library does not see meta fields); operationShapeRule bounds them instead.
 */
export function complexityLimitPlugin(maxComplexity: number): ApolloServerPlugin {
  // Apollo hands the same DocumentNode to every request with the same query text (its document
  // store), so a repeated query with the same variables is not walked again: the cost depends on
  // nothing else (the schema is fixed once the server starts).
  const known = new WeakMap<DocumentNode, Map<string, number>>();
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, schema }) {
          const key = `${request.operationName ?? ''}\u0000${JSON.stringify(request.variables ?? {})}`;
          let costs = known.get(document);
          let complexity = costs?.get(key);
          if (complexity === undefined) {
            complexity = computeComplexity(schema, document, request.operationName ?? undefined, request.variables ?? {});
            if (!costs) known.set(document, (costs = new Map<string, number>()));
            // Variables vary without bound (ids, cursors): keep the most recent few per document.
            if (costs.size >= KNOWN_VARIABLE_SETS) costs.clear();
            costs.set(key, complexity);
          }
          if (complexity > maxComplexity) {
            throw new GraphQLError(
              `operation complexity ${complexity} exceeds the limit ${maxComplexity}; ask for smaller pages or fewer fields`,
              {
                extensions: {
                  code: ApiErrorCode.QueryTooComplex,
                  reason: 'COMPLEXITY_LIMIT',
                  complexity,
                  maxComplexity,
                  http: { status: 400 },
                },
              },
            );
          }
        },
      };
    },
  };
}

/** Costs remembered per document; a caller cycling through more variable sets only recomputes. */
const KNOWN_VARIABLE_SETS = 32;

function computeComplexity(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown>,
): number {
  try {
    return getComplexity({
      schema,
      query: document,
      operationName,
      variables,
      estimators: [pageEstimator, fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 1 })],
    });
  } catch (error) {
    // The library coerces the variables first; values of the wrong type are the caller's mistake.
    if (!(error instanceof GraphQLError)) throw error;
    throw new GraphQLError(error.message, { extensions: { code: ApiErrorCode.BadUserInput, http: { status: 400 } } });
  }
}
