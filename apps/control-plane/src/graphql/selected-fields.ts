import { Kind, type FieldNode, type FragmentDefinitionNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * The names of the fields a resolver's caller selects at `path` below the resolver's own field
 * (e.g. `['nodes']` for a connection's items), through fragments and inline fragments and over
 * every alias. `@skip`/`@include` are not evaluated: a field they leave out still counts, so the
 * answer is a superset of what executes, never less (a resolver may fetch a column too many,
 * never one too few). Introspection fields (`__typename`) are left out.
 */
export function selectedFields(info: SelectionInfo, path: readonly string[] = []): Set<string> {
  return new Set(
    selectedFieldNodes(info, path)
      .map((field) => field.name.value)
      .filter((name) => !name.startsWith('__')),
  );
}

/** The field nodes behind selectedFields (every alias its own node), for a look at their arguments. */
export function selectedFieldNodes(info: SelectionInfo, path: readonly string[] = []): FieldNode[] {
  let level: readonly FieldNode[] = info.fieldNodes;
  for (const name of path) level = fieldsOf(level, info.fragments).filter((field) => field.name.value === name);
  return fieldsOf(level, info.fragments);
}

type SelectionInfo = Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>;

/** The fields directly under these fields' selection sets, fragments expanded. */
function fieldsOf(parents: readonly FieldNode[], fragments: Record<string, FragmentDefinitionNode>): FieldNode[] {
  const fields: FieldNode[] = [];
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode | undefined) => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) fields.push(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) walk(selection.selectionSet);
      else if (!seen.has(selection.name.value)) {
        // Validation has refused cycles; `seen` only keeps a fragment spread twice from being walked twice.
        seen.add(selection.name.value);
        walk(fragments[selection.name.value]?.selectionSet);
      }
    }
  };
  for (const parent of parents) walk(parent.selectionSet);
  return fields;
}
