import { isObjectType, type GraphQLSchema } from 'graphql';

const PREFETCHED = Symbol('prefetched fields');

type WithPrefetched = { [PREFETCHED]?: Record<string, unknown> };

/**
 * Records the value of `field` (asked without arguments) on an object a list resolver returns,
 * computed for the whole page at once. `prefetchedFields` lets graphql-js read it synchronously
 * instead of calling the field's Nest resolver, which for a page of 100 is 100 runs of the
 * guard, parameter and promise pipeline for values already in hand (docs/performance.md).
 */
export function setPrefetched(target: object, field: string, value: unknown): void {
  const holder = target as WithPrefetched;
  (holder[PREFETCHED] ??= {})[field] = value;
}

/**
 * Wraps the resolvers of the given `Type.field`s: a parent carrying a prefetched value for the
 * field, asked without arguments, gets it as is; everything else (arguments, a parent from
 * another resolver) goes to the field's own resolver, guards included. Only parents that an
 * already guarded resolver produced carry values, so the field's guard would decide as the
 * parent's did (same principal, same roles).
 */
export function prefetchedFields(fields: readonly (readonly [type: string, field: string])[]): (schema: GraphQLSchema) => GraphQLSchema {
  return (schema) => {
    for (const [typeName, fieldName] of fields) {
      const type = schema.getType(typeName);
      const field = isObjectType(type) ? type.getFields()[fieldName] : undefined;
      const resolve = field?.resolve;
      if (!field || !resolve) throw new Error(`prefetchedFields: ${typeName}.${fieldName} has no resolver to wrap`);
      field.resolve = (source: WithPrefetched | null | undefined, args: Record<string, unknown>, context: unknown, info) => {
        const prefetched = source?.[PREFETCHED];
        if (prefetched && fieldName in prefetched && Object.keys(args).length === 0) return prefetched[fieldName];
        return resolve(source, args, context, info);
      };
    }
    return schema;
  };
}
