import { Kind, parse, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { selectedFields } from './selected-fields';

/** The resolve info of the operation's first root field, as graphql-js hands it to its resolver. */
function infoOf(query: string) {
  const document = parse(query);
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const first = operation.selectionSet.selections[0] as FieldNode;
  const fieldNodes = operation.selectionSet.selections.filter(
    (s): s is FieldNode => s.kind === Kind.FIELD && s.name.value === first.name.value,
  );
  return { fieldNodes, fragments };
}

const sorted = (s: Set<string>) => [...s].sort();

describe('selectedFields', () => {
  it('lists the fields under a path, without introspection fields', () => {
    const info = infoOf('{ manifests { nodes { id state __typename skill { name } } pageInfo { hasNextPage } } }');
    expect(sorted(selectedFields(info, ['nodes']))).toEqual(['id', 'skill', 'state']);
    expect(sorted(selectedFields(info))).toEqual(['nodes', 'pageInfo']);
    expect(sorted(selectedFields(info, ['nodes', 'skill']))).toEqual(['name']);
  });

  it('follows named and inline fragments, at any level', () => {
    const info = infoOf(`
      query { manifests { ...Page } }
      fragment Page on CapabilityManifestConnection { nodes { id ...More ... on CapabilityManifest { handler } } }
      fragment More on CapabilityManifest { document ... { owner } }`);
    expect(sorted(selectedFields(info, ['nodes']))).toEqual(['document', 'handler', 'id', 'owner']);
  });

  it('merges aliases of the same field and of the path', () => {
    const info = infoOf('{ manifests { a: nodes { x: id } b: nodes { limits } } manifests { nodes { routing } } }');
    expect(sorted(selectedFields(info, ['nodes']))).toEqual(['id', 'limits', 'routing']);
  });

  it('counts fields that @skip or @include may leave out (a superset, never fewer)', () => {
    const info = infoOf('query($no: Boolean!) { manifests { nodes { id document @skip(if: true) limits @include(if: $no) } } }');
    expect(sorted(selectedFields(info, ['nodes']))).toEqual(['document', 'id', 'limits']);
  });

  it('is empty under a path the query does not select', () => {
    expect(selectedFields(infoOf('{ manifests { pageInfo { hasNextPage } } }'), ['nodes']).size).toBe(0);
  });
});
