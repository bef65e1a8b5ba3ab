import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';
import { ApiErrorCode } from '../errors';
import { DEFAULT_PAGE_SIZE } from './pagination';

/** A list field costs its children times the page size it asks for (`page: {first}` or `first`). */
const pageEstimator: ComplexityEstimator = ({ args, childComplexity }) => {
  const first = (args.page as { first?: number } | undefined)?.first ?? (args.first as number | undefined);
  if (args.page === undefined && args.first === undefined) return undefined;
  return 1 + childComplexity * Math.max(1, first ?? DEFAULT_PAGE_SIZE);
};

/**
 * Complexity limit (graphql-query-complexity). It runs once the operation is resolved rather
 * than as a plain validation rule because the cost depends on variables (`first: $n`), which
 * Apollo's validation rules do not see. It still refuses before any resolver runs.
 */
export function complexityLimitPlugin(maxComplexity: number): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, schema, operationName }) {
          if (operationName === 'IntrospectionQuery') return;
          const complexity = getComplexity({
            schema,
            query: document,
            operationName: request.operationName ?? undefined,
            variables: request.variables ?? {},
            estimators: [pageEstimator, fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 1 })],
          });
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
