import { parse } from 'graphql';
import { MAX_NUL_ISSUES, MAX_PATH_CHARS, nulInDocument, nulInVariables } from './nul-character.plugin';

const paths = (issues: { path: string }[]) => issues.map((i) => i.path);

describe('NUL in GraphQL string input', () => {
  it('names each literal by field, argument and the path inside it', () => {
    const document = parse(`
      query Q($a: String = "d\\u0000") {
        agents(filter: { teamId: "ok" }) { nodes { id } }
        manifests(filter: { agentId: "a\\u0000b", tags: ["x", "y\\u0000"] }) { nodes { id @skip(if: false) } }
        outer { inner(id: "\\u0000") { ...F } }
      }
      fragment F on X { deep(json: { a: [[{ b: "\\u0000" }]] }) }`);
    expect(paths(nulInDocument(document))).toEqual([
      '$a (default)',
      'manifests(filter.agentId)',
      'manifests(filter.tags[1])',
      'outer.inner(id)',
      'deep(json.a[0][0].b)',
    ]);
  });

  it('passes documents without NUL, tabs, newlines and unicode included', () => {
    expect(nulInDocument(parse('{ a(x: "t\\tn\\n\\u202e😀", y: """block\n""") }'))).toEqual([]);
  });

  it('names each variable path, object keys included', () => {
    const issues = nulInVariables({
      ok: 'fine\t\n',
      f: { agentId: 'a\u0000', nested: [{ deep: ['x', '\u0000'] }], ['k\u0000']: 1 },
      s: '\u0000',
      n: null,
    });
    expect(issues).toEqual([
      { path: '$f', message: 'must not contain NUL characters (U+0000) in a key' },
      { path: '$f.agentId', message: 'must not contain NUL characters (U+0000)' },
      { path: '$f.nested[0].deep[1]', message: 'must not contain NUL characters (U+0000)' },
      { path: '$s', message: 'must not contain NUL characters (U+0000)' },
    ]);
    expect(nulInVariables(undefined)).toEqual([]);
  });

  it('stops after MAX_NUL_ISSUES and walks nesting far deeper than the stack', () => {
    expect(nulInVariables({ many: Array.from({ length: 10_000 }, () => '\u0000') })).toHaveLength(MAX_NUL_ISSUES);
    let deep: unknown = '\u0000';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const [issue] = nulInVariables({ deep });
    expect(issue.path.length).toBeLessThanOrEqual(MAX_PATH_CHARS + 1);
    expect(issue.path).toMatch(/^\$deep\[0\].*….*\[0\]$/);
  });

  it('never echoes a NUL of a key in a path', () => {
    expect(paths(nulInVariables({ o: { ['k\u0000']: { v: '\u0000' } } }))).toEqual(['$o', '$o.k\\u0000.v']);
  });
});
