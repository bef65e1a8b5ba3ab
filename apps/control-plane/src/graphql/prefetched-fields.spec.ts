import { buildSchema, graphql, type GraphQLFieldResolver, type GraphQLObjectType } from 'graphql';
import { prefetchedFields, setPrefetched } from './prefetched-fields';

function schemaWith(resolve: GraphQLFieldResolver<unknown, unknown>) {
  const schema = buildSchema(`
    type Query { items: [Item!]! }
    type Item { id: String! count(window: Int): Int! }`);
  (schema.getType('Item') as GraphQLObjectType).getFields().count.resolve = resolve;
  return prefetchedFields([['Item', 'count']])(schema);
}

describe('prefetchedFields', () => {
  const calls: unknown[] = [];
  const schema = schemaWith((_source, args: { window?: number }) => {
    calls.push(args);
    return 100 + (args.window ?? 0);
  });
  const prefetched = { id: 'a' };
  setPrefetched(prefetched, 'count', 7);
  const rootValue = { items: [prefetched, { id: 'b' }] };

  beforeEach(() => (calls.length = 0));

  it('answers a prefetched field asked without arguments without calling its resolver', async () => {
    const result = await graphql({ schema, source: '{ items { id count } }', rootValue });
    expect(result).toEqual({
      data: {
        items: [
          { id: 'a', count: 7 },
          { id: 'b', count: 100 },
        ],
      },
    });
    expect(calls).toEqual([{}]);
  });

  it('calls the resolver when the field has arguments, also for a prefetched parent', async () => {
    const result = await graphql({ schema, source: '{ items { w: count(window: 2) count } }', rootValue });
    expect(result).toEqual({
      data: {
        items: [
          { w: 102, count: 7 },
          { w: 102, count: 100 },
        ],
      },
    });
    expect(calls).toEqual([{ window: 2 }, { window: 2 }, {}]);
  });

  it('refuses to wrap a field without a resolver (a typo would otherwise go unnoticed)', () => {
    expect(() => prefetchedFields([['Item', 'id']])(buildSchema('type Query { x: Item } type Item { id: String }'))).toThrow(/Item.id/);
  });
});
