/** `cpctl route test <dir>` (issue 13): labelled messages as a CI gate, offline. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { given } from '../../libs/capabilities/src/testing/given';
import { cpctl, Workspace } from '../support/cpctl-harness';

const manifests = () => [
  given.manifest({
    id: 'book-flight',
    skill: {
      name: 'Book a flight',
      description: 'Books a flight within the travel policy.',
      tags: ['travel'],
      examples: ['Book me a flight to Berlin.'],
    },
    routing: { terms: ['plane', 'fly'], negativeTerms: [] },
  }),
  given.manifest({
    id: 'book-hotel',
    skill: {
      name: 'Book a hotel',
      description: 'Books a hotel room near your destination.',
      tags: ['travel'],
      examples: ['I need a hotel in Madrid.'],
    },
  }),
];

describe('cpctl route test', () => {
  const ws = new Workspace();
  afterAll(() => ws.remove());

  const dirWith = (name: string, tests: unknown) => {
    const dir = ws.manifestDir(name, manifests());
    writeFileSync(join(dir, 'routing-tests.yaml'), typeof tests === 'string' ? tests : YAML.stringify(tests));
    return dir;
  };

  it('passes when every labelled message routes as expected, and routing-tests.yaml is not read as a manifest', async () => {
    const dir = dirWith('ok', {
      min_accuracy: 1,
      tests: [
        { text: 'get me on a plane, I have to fly to Oslo on Monday', expect: 'book-flight' },
        { text: 'book a hotel room in Madrid for two nights', expect: 'book-hotel' },
        { text: 'hello', expect: 'clarify' },
      ],
    });
    const run = await cpctl(['route', 'test', dir, '--json']);
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({ ok: true, total: 3, correct: 3, wrongRoutes: 0, correctClarifications: 1 });
    expect((await cpctl(['validate', dir])).code).toBe(0);
  });

  it('fails (exit 11) on a wrong route and names it, and on accuracy below the minimum', async () => {
    const wrong = dirWith('wrong', { tests: [{ text: 'book a hotel room in Madrid for two nights', expect: 'book-flight' }] });
    const run = await cpctl(['route', 'test', wrong, '--json']);
    expect(run.code).toBe(11);
    expect(run.json()).toMatchObject({
      ok: false,
      wrongRoutes: 1,
      misses: [{ index: 0, expect: 'book-flight', got: 'book-hotel', wrong: true }],
    });
    const low = dirWith('low', { min_accuracy: 1, tests: [{ text: 'hotel', expect: 'book-hotel' }] });
    const lowRun = await cpctl(['route', 'test', low, '--json']);
    expect(lowRun.code).toBe(11);
    expect(lowRun.json()).toMatchObject({ ok: false, wrongRoutes: 0, falseClarifications: 1 });
    expect((await cpctl(['route', 'test', low, '--min-accuracy', '0'])).code).toBe(0);
  });

  it('refuses hostile or malformed test files with every problem named, never a crash', async () => {
    const bad = dirWith('bad', {
      min_accuracy: 7,
      tests: [
        { text: 'x', expect: 'someone-elses-capability' },
        { expect: 'book-flight' },
        { text: 'a'.repeat(20_000), expect: 'book-flight', extra: 1 },
      ],
    });
    const run = await cpctl(['route', 'test', bad, '--json']);
    expect(run.code).toBe(1);
    const paths = run.json<{ error: { issues: { path: string }[] } }>().error.issues.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['$.min_accuracy', '$.tests[1]', '$.tests[2].text']));
    const unknown = dirWith('unknown', { tests: [{ text: 'book a flight', expect: 'someone-elses-capability' }] });
    const unknownRun = await cpctl(['route', 'test', unknown, '--json']);
    expect(unknownRun.code).toBe(1);
    expect(unknownRun.stdout).toContain('$.tests[0].expect');
    const notYaml = dirWith('not-yaml', ': : [');
    expect((await cpctl(['route', 'test', notYaml])).code).toBe(1);
    const none = ws.manifestDir('none', manifests());
    expect((await cpctl(['route', 'test', none])).code).toBe(2);
  });
});
