/** cpctl's offline commands (validate, card diff/show from files), through the real binary. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { financeAgentExample, toManifestDocument, type CapabilityManifest } from '@cp/capabilities';
import { given } from '@cp/capabilities/testing';
import { cpctl, Workspace } from '../support/cpctl-harness';

const example = financeAgentExample();
const agent = { id: 'finance-agent', ...example.agent };
const [lookup, reconcile] = example.manifests as [CapabilityManifest, CapabilityManifest];

describe('cpctl validate', () => {
  const ws = new Workspace();
  afterAll(() => ws.remove());

  it('accepts a valid directory (YAML files + agent.yaml) with exit 0', async () => {
    const dir = ws.manifestDir('good', example.manifests, agent);
    const run = await cpctl(['validate', dir]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('2 manifest(s) valid');
  });

  it('lists every error with file and JSON path, in file order, and exits 1', async () => {
    const dir = ws.manifestDir('bad', [lookup], agent);
    ws.write(
      'bad/broken.yaml',
      [
        'id: Bad_Id',
        'state: ga',
        'visibility: public',
        'skill:',
        '  name: ""',
        '  tags: []',
        'requires_scopes: [recon.run]',
        'tenants: "*"',
        'handler: x.y',
        'limits: {}',
        'owner: team',
        'input_modes: [text/plain]',
        '',
      ].join('\n'),
    );
    // A JSON list: a duplicate of a manifest in another file, and a dangling replaced_by.
    const doc = toManifestDocument(lookup);
    ws.write('bad/list.json', JSON.stringify([doc, { ...doc, id: 'old-lookup', state: 'deprecated', replaced_by: 'nowhere' }]));
    ws.write('bad/syntax.yml', 'id: a\n  b: : c\n');
    const run = await cpctl(['validate', dir]);
    expect(run.code).toBe(1);
    const lines = run.stdout.trim().split('\n');
    const broken = join(dir, 'broken.yaml');
    const list = join(dir, 'list.json');
    expect(lines).toEqual(
      expect.arrayContaining([
        `${broken}: $.id: must be lowercase kebab-case starting with a letter, e.g. reconcile-invoice`,
        `${broken}: $.input_modes: unknown field`,
        `${broken}: $.skill.name: must not be empty`,
        `${broken}: $.skill.description: is required`,
        `${broken}: $.skill.tags: must list at least one tag`,
        `${broken}: $.requires_scopes: a public capability is open to every caller: use visibility "extended" to require scopes`,
        `${list}: $[0].id: duplicate capability id "invoice-lookup" (first at ${join(dir, 'invoice-lookup.yaml')})`,
        `${list}: $[1].replaced_by: replacement "nowhere" is not a capability of this set`,
      ]),
    );
    expect(lines.some((l) => l.startsWith(`${join(dir, 'syntax.yml')}: line 1, column 5: invalid YAML`))).toBe(true);
    // Files in name order: broken.yaml, then invoice-lookup.yaml (valid), list.json, syntax.yml.
    const files = lines.slice(0, -1).map((l) => l.slice(0, l.indexOf(': ')));
    expect(files).toEqual([...files].sort());
    expect(lines.at(-1)).toMatch(/^\d+ problem\(s\) in /);
  });

  it('reports an invalid agent.yaml with its paths', async () => {
    const dir = ws.manifestDir('bad-agent', example.manifests);
    ws.write(
      'bad-agent/agent.yaml',
      'name: Finance\ndescription: d\nversion: "1"\nsupportedInterfaces: []\ndefaultInputModes: [text/plain]\ndefaultOutputModes: [json]\ncolour: blue\n',
    );
    const run = await cpctl(['validate', dir]);
    expect(run.code).toBe(1);
    const file = join(dir, 'agent.yaml');
    expect(run.stdout).toContain(`${file}: $.supportedInterfaces: must list at least one interface`);
    expect(run.stdout).toContain(`${file}: $.defaultOutputModes[0]: must be a media type type/subtype, e.g. text/plain`);
    expect(run.stdout).toContain(`${file}: $.colour: unknown field`);
  });

  it('--json: a stable document with every issue', async () => {
    const dir = ws.manifestDir('json-bad', [{ ...lookup, visibility: 'public', requiresScopes: ['recon.run'] }]);
    const run = await cpctl(['validate', dir, '--json']);
    expect(run.code).toBe(1);
    expect(run.json()).toEqual({
      command: 'validate',
      ok: false,
      exitCode: 1,
      dir,
      manifests: [],
      documents: 1,
      agentFile: null,
      issues: [
        { file: join(dir, 'invoice-lookup.yaml'), path: '$.requires_scopes', message: expect.stringContaining('public capability') },
      ],
    });
    const good = await cpctl(['--json', 'validate', ws.manifestDir('json-good', example.manifests)]);
    expect(good.json()).toMatchObject({
      command: 'validate',
      ok: true,
      exitCode: 0,
      manifests: ['invoice-lookup', 'reconcile-invoice'],
      issues: [],
    });
  });

  it('exits 2 on usage errors: a missing directory, no manifests, an unknown option', async () => {
    const missing = await cpctl(['validate', ws.path('nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read directory');
    expect((await cpctl(['validate'])).code).toBe(2);
    expect((await cpctl(['validate', ws.root, '--frobnicate'])).code).toBe(2);
    const empty = await cpctl(['validate', ws.manifestDir('empty', [])]);
    expect(empty.code).toBe(1);
    expect(empty.stdout).toContain('no manifest files');
  });
});

describe('cpctl card diff (from files)', () => {
  const ws = new Workspace();
  let released: string;
  beforeAll(async () => {
    const dir = ws.manifestDir('release', example.manifests, agent);
    released = ws.path('released-card.json');
    const show = await cpctl(['card', 'show', dir, '--out', released]);
    expect(show.code).toBe(0);
  });
  afterAll(() => ws.remove());

  it('card show writes the public card: only public skills', () => {
    const card = JSON.parse(readFileSync(released, 'utf8')) as { skills: { id: string }[]; capabilities: { extendedAgentCard: boolean } };
    expect(card.skills.map((s) => s.id)).toEqual(['invoice-lookup']);
    expect(card.capabilities.extendedAgentCard).toBe(true);
  });

  it('passes (exit 0) when nothing changed', async () => {
    const run = await cpctl(['card', 'diff', ws.manifestDir('same', example.manifests, agent), '--against', released]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('the public card is unchanged');
  });

  it('fails (exit 3) on any change, flags breaking ones, and passes with --approve', async () => {
    const narrowed = { ...lookup, skill: { ...lookup.skill, name: 'Find an invoice', inputModes: ['text/plain'] } };
    const dir = ws.manifestDir('changed', [narrowed, reconcile], agent);
    const run = await cpctl(['card', 'diff', dir, '--against', released]);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/BREAKING input-modes-narrowed\s+invoice-lookup no longer accepts\/produces "application\/pdf"/);
    expect(run.stdout).toMatch(/name-changed\s+invoice-lookup name "Look up an invoice" → "Find an invoice"/);
    const approved = await cpctl(['card', 'diff', dir, '--against', released, '--approve', '--json']);
    expect(approved.code).toBe(0);
    expect(approved.json()).toMatchObject({
      command: 'card diff',
      ok: true,
      exitCode: 0,
      approved: true,
      changed: true,
      breaking: true,
      leaks: [],
      changes: expect.arrayContaining([
        { kind: 'input-modes-narrowed', skillId: 'invoice-lookup', breaking: true, detail: expect.any(String) },
      ]),
    });
  });

  it('fails on changes the classification does not name (agent version)', async () => {
    const run = await cpctl([
      'card',
      'diff',
      ws.manifestDir('version', example.manifests, { ...agent, version: '1.1.0' }),
      '--against',
      released,
    ]);
    expect(run.code).toBe(3);
    expect(run.stdout).toContain('card-field-changed');
  });

  it('fails (exit 4) on a leak of extended-only text into the public card, even with --approve', async () => {
    const leaky = {
      ...lookup,
      skill: { ...lookup.skill, description: `Finds an invoice. Partners may also ${reconcile.skill.name.toLowerCase()}.` },
    };
    const dir = ws.manifestDir('leak', [leaky, reconcile], agent);
    const run = await cpctl(['card', 'diff', dir, '--against', released, '--approve']);
    expect(run.code).toBe(4);
    expect(run.stdout).toContain('LEAK reconcile-invoice.name: "Reconcile an invoice" appears in the public card');
    const json = await cpctl(['card', 'diff', dir, '--against', released, '--approve', '--json']);
    expect(json.json()).toMatchObject({
      exitCode: 4,
      leaks: [{ skillId: 'reconcile-invoice', field: 'name', text: 'Reconcile an invoice' }],
    });
  });

  it('refuses a directory without agent.yaml, and invalid files (exit 1)', async () => {
    expect((await cpctl(['card', 'diff', ws.manifestDir('no-agent', example.manifests), '--against', released])).code).toBe(2);
    const bad = await cpctl([
      'card',
      'diff',
      ws.manifestDir('invalid', [given.manifest({ id: 'x-y', handler: 'BAD' })], agent),
      '--against',
      released,
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('$.handler: must be dotted lowercase identifiers');
  });
});
