import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
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
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, schema }) {
          let complexity: number;
          try {
            complexity = getComplexity({
              schema,
              query: document,
              operationName: request.operationName ?? undefined,
              variables: request.variables ?? {},
              estimators: [pageEstimator, fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 1 })],
            });
          } catch (error) {
            // The library coerces the variables first; values of the wrong type are the caller's mistake.
            if (!(error instanceof GraphQLError)) throw error;
            throw new GraphQLError(error.message, { extensions: { code: ApiErrorCode.BadUserInput, http: { status: 400 } } });
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
