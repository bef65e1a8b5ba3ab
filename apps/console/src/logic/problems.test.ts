import { describe, expect, it } from 'vitest';
import { parseJson, problemsForManifest } from './problems';
import { byNode, pivot } from './usage';

describe('problems at JSON paths', () => {
  it('keeps the edited manifest’s problems, at paths inside its document, and drops the others', () => {
    const problems = [
      { path: '$.manifests[1].skill.name', message: 'must not be empty' },
      { path: '$[1].tags[0]', message: 'bad tag' },
      { path: '$[0].id', message: 'other manifest' },
      { path: '$.manifests[1]', message: 'whole document' },
      { path: '$.expectedRevision', message: 'not about a manifest' },
    ];
    expect(problemsForManifest(problems, 1)).toEqual([
      { path: '$.skill.name', message: 'must not be empty' },
      { path: '$.tags[0]', message: 'bad tag' },
      { path: '$', message: 'whole document' },
      { path: '$.expectedRevision', message: 'not about a manifest' },
    ]);
  });

  it('names the line and column of a JSON syntax error', () => {
    expect(parseJson('{"a": 1}')).toEqual({ value: { a: 1 } });
    const bad = parseJson('{\n  "a": 1,\n  "b": }');
    expect('error' in bad && bad.error).toMatch(/^not valid JSON/);
    // A truncated document names where it stops.
    const truncated = parseJson('{\n  "id": ');
    expect('error' in truncated && truncated.error).toMatch(/^not valid JSON at line 2, column 9: /);
  });
});

describe('usage pivots', () => {
  const day = (d: string, capabilityId: string, tenantId: string, calls: number, lastCallAt = `${d}T10:00:00Z`) => ({
    day: d,
    capabilityId,
    tenantId,
    calls,
    lastCallAt,
  });
  it('sums calls per day and series, every series present in every row, days ascending', () => {
    const { rows, series } = pivot(
      [day('2026-11-02', 'b', 't', 2), day('2026-11-01', 'a', 't', 1), day('2026-11-02', 'a', 'u', 3)],
      (d) => d.capabilityId,
    );
    expect(series).toEqual(['a', 'b']);
    expect(rows).toEqual([
      { day: '2026-11-01', a: 1, b: 0 },
      { day: '2026-11-02', a: 3, b: 2 },
    ]);
  });
  it('sums calls per node and capability, busiest node first, leaving out capabilities nobody called', () => {
    const { rows, series } = byNode([
      {
        capabilityId: 'x',
        nodes: [
          { nodeId: 'n1', calls: 2 },
          { nodeId: 'n2', calls: 5 },
        ],
      },
      { capabilityId: 'y', nodes: [{ nodeId: 'n1', calls: 1 }] },
      { capabilityId: 'z', nodes: [] },
    ]);
    expect(series).toEqual(['x', 'y']);
    expect(rows).toEqual([
      { node: 'n2', x: 5, y: 0 },
      { node: 'n1', x: 2, y: 1 },
    ]);
    expect(byNode([])).toEqual({ rows: [], series: [] });
  });
});
