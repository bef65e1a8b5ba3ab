import type { ApolloServerPlugin } from '@apollo/server';
import { Kind, type OperationDefinitionNode } from 'graphql';
import type { Registry } from 'prom-client';
import { serverCounter, serverHistogram } from '@cp/common';

/**
 * Counts every GraphQL operation per root field and times it (ADR 0140). Labels are the operation
 * type and the root field's schema name (known only after validation, so a caller cannot mint
 * series); the client's operationName is free text and never a label. An operation refused
 * before it resolved (parse, validation) is counted as field `(invalid)`.
 */
export function graphqlMetricsPlugin(registry: Registry | undefined): ApolloServerPlugin {
  if (!registry) return {};
  const operations = serverCounter(registry, 'graphqlOperations');
  const duration = serverHistogram(registry, 'graphqlDuration');
  return {
    async requestDidStart() {
      const started = performance.now();
      let type = 'unknown';
      let fields: string[] = [];
      return {
        async didResolveOperation({ operation }) {
          if (!operation) return;
          type = operation.operation;
          fields = rootFields(operation);
        },
        async willSendResponse({ errors }) {
          const seconds = (performance.now() - started) / 1000;
          if (fields.length === 0) {
            operations.labels(type, '(invalid)', 'invalid').inc();
            duration.labels(type, '(invalid)').observe(seconds);
            return;
          }
          const outcome = errors && errors.length > 0 ? 'error' : 'ok';
          for (const field of fields) operations.labels(type, field, outcome).inc();
          duration.labels(type, fields[0]).observe(seconds);
        },
      };
    },
  };
}

function rootFields(operation: OperationDefinitionNode): string[] {
  const names = new Set<string>();
  for (const selection of operation.selectionSet.selections) if (selection.kind === Kind.FIELD) names.add(selection.name.value);
  return [...names];
}
