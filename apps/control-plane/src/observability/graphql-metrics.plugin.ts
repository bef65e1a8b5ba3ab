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
  const operationsMetric = serverCounter(registry, 'graphqlOperations');
  const durationMetric = serverHistogram(registry, 'graphqlDuration');
  // The labelled children, looked up once per label set (prom-client hashes the labels on every
  // `labels()` call, ~1.5 % of the admin list's CPU): the sets are bounded by the schema's root fields.
  const counters = new Map<string, ReturnType<typeof operationsMetric.labels>>();
  const timers = new Map<string, ReturnType<typeof durationMetric.labels>>();
  const operations = {
    labels: (type: string, field: string, outcome: string) => {
      const key = `${type}\u0000${field}\u0000${outcome}`;
      let child = counters.get(key);
      if (!child) counters.set(key, (child = operationsMetric.labels(type, field, outcome)));
      return child;
    },
  };
  const duration = {
    labels: (type: string, field: string) => {
      const key = `${type}\u0000${field}`;
      let child = timers.get(key);
      if (!child) timers.set(key, (child = durationMetric.labels(type, field)));
      return child;
    },
  };
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
