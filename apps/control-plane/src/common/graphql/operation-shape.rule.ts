import {
  GraphQLError,
  Kind,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { ApiErrorCode } from '../errors';

export interface OperationShapeLimits {
  /** Aliased fields per operation, fragments expanded (graphql-js's introspection query has none). */
  maxAliases: number;
  /** Field selections at the operation's root, fragments expanded (aliases and repeats included). */
  maxRootFields: number;
  /**
   * Fields of the whole operation with every fragment spread expanded. Checked here, cheaply
   * (fragments measured once), because the complexity estimator and the depth rule expand
   * fragments by walking them: `fragment F1 { ...F2 ...F2 ...F2 ...F2 }` nested a dozen times
   * would make them walk millions of nodes.
   */
  maxNodes: number;
}

/** Introspection: one `__schema`, a few `__type`, lists nested no deeper than the standard query's. */
export const MAX_SCHEMA_FIELDS = 1;
export const MAX_TYPE_FIELDS = 5;
/** `__schema { types { fields { args } } }`: getIntrospectionQuery() nests three lists, never more. */
export const MAX_INTROSPECTION_LIST_DEPTH = 3;
const INTROSPECTION_LISTS = new Set(['types', 'fields', 'inputFields', 'args', 'enumValues', 'interfaces', 'possibleTypes', 'directives']);

interface Shape {
  aliases: number;
  /** Fields below this selection set, fragments expanded. */
  nodes: number;
  /** Deepest chain of introspection list fields below this selection set. */
  listDepth: number;
}

/**
 * Caps what an operation's size costs before anything runs, whatever the operation is called:
 * aliases, root fields and introspection. graphql-query-complexity does not see meta fields
 * (`__schema` costs it nothing), so introspection is bounded here by its shape instead (ADR 0060).
 * Fragments are measured once each (memoized), so spreading a fragment many times cannot make
 * the measuring itself expensive.
 */
export function operationShapeRule(limits: OperationShapeLimits): ValidationRule {
  return (context: ValidationContext) => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const def of context.getDocument().definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
    const memo = new Map<string, Shape>();
    const visiting = new Set<string>();

    const shapeOf = (set: SelectionSetNode | undefined): Shape => {
      const shape: Shape = { aliases: 0, nodes: 0, listDepth: 0 };
      if (!set) return shape;
      for (const sel of set.selections) {
        let inner: Shape;
        let list = 0;
        if (sel.kind === Kind.FIELD) {
          inner = shapeOf(sel.selectionSet);
          shape.nodes += 1;
          if (sel.alias) shape.aliases += 1;
          if (INTROSPECTION_LISTS.has(sel.name.value)) list = 1;
        } else if (sel.kind === Kind.INLINE_FRAGMENT) {
          inner = shapeOf(sel.selectionSet);
        } else {
          inner = fragmentShape(sel.name.value);
        }
        shape.aliases += inner.aliases;
        shape.nodes += inner.nodes;
        shape.listDepth = Math.max(shape.listDepth, list + inner.listDepth);
      }
      return shape;
    };

    const fragmentShape = (name: string): Shape => {
      const known = memo.get(name);
      if (known) return known;
      const fragment = fragments.get(name);
      if (!fragment || visiting.has(name)) return { aliases: 0, nodes: 0, listDepth: 0 }; // cycles: NoFragmentCycles reports them
      visiting.add(name);
      const shape = shapeOf(fragment.selectionSet);
      visiting.delete(name);
      memo.set(name, shape);
      return shape;
    };

    /** The root's field selections, fragments expanded as execution does (each fragment name once). */
    const rootFields = (
      set: SelectionSetNode,
      seen: Set<string>,
      out: { fields: number; schema: number; type: number; listDepth: number },
    ) => {
      for (const sel of set.selections) {
        if (sel.kind === Kind.FIELD) {
          out.fields += 1;
          if (sel.name.value === '__schema') out.schema += 1;
          if (sel.name.value === '__type') out.type += 1;
          if (sel.name.value === '__schema' || sel.name.value === '__type')
            out.listDepth = Math.max(out.listDepth, shapeOf(sel.selectionSet).listDepth);
        } else if (sel.kind === Kind.INLINE_FRAGMENT) {
          rootFields(sel.selectionSet, seen, out);
        } else {
          const fragment = fragments.get(sel.name.value);
          if (!fragment || seen.has(sel.name.value)) continue;
          seen.add(sel.name.value);
          rootFields(fragment.selectionSet, seen, out);
        }
        // Enough to refuse: stop counting (a root of many spreads must not make this loop long).
        if (out.fields > limits.maxRootFields) return;
      }
    };

    const refuse = (node: OperationDefinitionNode, reason: string, message: string, details: Record<string, number>) =>
      context.reportError(
        new GraphQLError(message, { nodes: [node], extensions: { code: ApiErrorCode.QueryTooComplex, reason, ...details } }),
      );

    return {
      OperationDefinition(node: OperationDefinitionNode) {
        const name = `operation "${node.name?.value ?? '(anonymous)'}"`;
        const { aliases, nodes } = shapeOf(node.selectionSet);
        if (nodes > limits.maxNodes) {
          refuse(node, 'NODE_LIMIT', `${name} selects more than ${limits.maxNodes} fields once its fragments are expanded`, {
            maxNodes: limits.maxNodes,
          });
          return;
        }
        if (aliases > limits.maxAliases) {
          refuse(node, 'ALIAS_LIMIT', `${name} has ${aliases} aliases; the limit is ${limits.maxAliases}`, {
            aliases,
            maxAliases: limits.maxAliases,
          });
          return;
        }
        const root = { fields: 0, schema: 0, type: 0, listDepth: 0 };
        rootFields(node.selectionSet, new Set(), root);
        if (root.fields > limits.maxRootFields) {
          refuse(node, 'ROOT_FIELD_LIMIT', `${name} selects more than ${limits.maxRootFields} root fields`, {
            maxRootFields: limits.maxRootFields,
          });
        } else if (root.schema > MAX_SCHEMA_FIELDS || root.type > MAX_TYPE_FIELDS || root.listDepth > MAX_INTROSPECTION_LIST_DEPTH) {
          refuse(
            node,
            'INTROSPECTION_LIMIT',
            `${name} asks for more introspection than a schema tool needs (at most ${MAX_SCHEMA_FIELDS} __schema, ${MAX_TYPE_FIELDS} __type, lists nested ${MAX_INTROSPECTION_LIST_DEPTH} deep)`,
            { schemaFields: root.schema, typeFields: root.type, listDepth: root.listDepth },
          );
        }
      },
    };
  };
}
