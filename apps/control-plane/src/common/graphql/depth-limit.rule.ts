import {
  GraphQLError,
  Kind,
  type ASTNode,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { ApiErrorCode } from '../errors';

/**
 * Refuses operations nested deeper than `maxDepth` fields. Introspection fields (`__schema`,
 * `__type`) are not counted: tools' introspection queries are deep by nature and cost little.
 */
export function depthLimitRule(maxDepth: number): ValidationRule {
  return (context: ValidationContext) => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const def of context.getDocument().definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
    const memo = new Map<string, number>();

    const depthOf = (set: SelectionSetNode | undefined, seen: Set<string>): number => {
      if (!set) return 0;
      let max = 0;
      for (const sel of set.selections) {
        if (sel.kind === Kind.FIELD) {
          if (sel.name.value.startsWith('__')) continue;
          max = Math.max(max, sel.selectionSet ? 1 + depthOf(sel.selectionSet, seen) : 1);
        } else if (sel.kind === Kind.INLINE_FRAGMENT) {
          max = Math.max(max, depthOf(sel.selectionSet, seen));
        } else {
          const name = sel.name.value;
          const fragment = fragments.get(name);
          if (!fragment || seen.has(name)) continue; // cycles are reported by NoFragmentCycles
          // A fragment's depth does not depend on where it is spread: measure each once.
          let depth = memo.get(name);
          if (depth === undefined) {
            depth = depthOf(fragment.selectionSet, new Set([...seen, name]));
            memo.set(name, depth);
          }
          max = Math.max(max, depth);
        }
      }
      return max;
    };

    return {
      OperationDefinition(node: ASTNode) {
        if (node.kind !== Kind.OPERATION_DEFINITION) return;
        const depth = depthOf(node.selectionSet, new Set());
        if (depth > maxDepth) {
          context.reportError(
            new GraphQLError(`operation "${node.name?.value ?? '(anonymous)'}" is ${depth} levels deep; the limit is ${maxDepth}`, {
              nodes: [node],
              extensions: { code: ApiErrorCode.QueryTooComplex, reason: 'DEPTH_LIMIT', depth, maxDepth },
            }),
          );
        }
      },
    };
  };
}
