import { financeAgentExample } from './fixtures/finance-agent';
import { checkManifestChange, sunsetIssues } from './lifecycle';
import { given } from './testing/given';
import type { CapabilityManifest, CapabilityState } from './types';

const recon = () => financeAgentExample().manifests[1];
const registry = () => financeAgentExample().manifests;
const at = (m: CapabilityManifest, state: CapabilityState, extra: Partial<CapabilityManifest> = {}) => ({ ...m, state, ...extra });
const paths = (issues: { path: string }[]) => issues.map((i) => i.path);

describe('checkManifestChange', () => {
  it.each([
    ['preview', 'ga'],
    ['ga', 'deprecated'],
    ['deprecated', 'removed'],
    ['preview', 'removed'],
    ['ga', 'ga'],
  ] as [CapabilityState, CapabilityState][])('allows %s → %s', (from, to) => {
    const reason = { deprecationReason: 'Superseded.' };
    expect(checkManifestChange(at(recon(), from, from === 'deprecated' ? reason : {}), at(recon(), to, reason), registry())).toEqual([]);
  });

  it.each([
    ['ga', 'removed', 'deprecate it first'],
    ['ga', 'preview', 'not allowed'],
    ['deprecated', 'ga', 'not allowed'],
    ['preview', 'deprecated', 'not allowed'],
  ] as [CapabilityState, CapabilityState, string][])('refuses %s → %s', (from, to, text) => {
    const reason = { deprecationReason: 'Superseded.' };
    const issues = checkManifestChange(at(recon(), from, reason), at(recon(), to, reason), registry());
    expect(issues[0]).toMatchObject({ path: '$.state' });
    expect(issues[0].message).toContain(text);
  });

  it('deprecating needs an existing live replacement or a reason', () => {
    expect(paths(checkManifestChange(recon(), at(recon(), 'deprecated'), registry()))).toEqual(['$.replaced_by']);
    expect(checkManifestChange(recon(), at(recon(), 'deprecated', { replacedBy: 'nope' }), registry())[0].message).toContain(
      'does not exist',
    );
    expect(checkManifestChange(recon(), at(recon(), 'deprecated', { replacedBy: 'reconcile-invoice' }), registry())[0].message).toContain(
      'itself',
    );
    const v2 = given.manifest({ id: 'reconcile-invoice-v2' });
    expect(checkManifestChange(recon(), at(recon(), 'deprecated', { replacedBy: v2.id }), [...registry(), v2])).toEqual([]);
    expect(
      checkManifestChange(recon(), at(recon(), 'deprecated', { replacedBy: v2.id }), [...registry(), at(v2, 'removed')])[0].message,
    ).toContain('removed');
    expect(checkManifestChange(recon(), at(recon(), 'deprecated', { deprecationReason: 'No replacement.' }), registry())).toEqual([]);
  });

  it('never reuses a removed id', () => {
    const removed = at(recon(), 'removed');
    const issues = checkManifestChange(undefined, { ...recon(), handler: 'recon.v4.reconcile' }, [removed]);
    expect(issues).toEqual([{ path: '$.id', message: expect.stringContaining('never reused') }]);
  });

  it('never changes a removed manifest', () => {
    const removed = at(recon(), 'removed');
    expect(checkManifestChange(removed, removed, [removed])).toEqual([]);
    expect(checkManifestChange(removed, { ...removed, owner: 'other-team' }, [removed])[0].message).toContain('can no longer change');
  });

  it('refuses a new handler or new modes for a ga capability, saying to publish a new id', () => {
    const next = {
      ...recon(),
      handler: 'recon.v4.reconcile',
      skill: { ...recon().skill, inputModes: ['text/plain'], outputModes: ['text/csv'] },
    };
    const issues = checkManifestChange(recon(), next, registry());
    expect(paths(issues)).toEqual(['$.handler', '$.skill.inputModes', '$.skill.outputModes']);
    for (const i of issues) expect(i.message).toContain('publish a new capability id');
  });

  it('allows reordering modes and editing text of a ga capability, and anything in preview', () => {
    const reordered = {
      ...recon(),
      skill: { ...recon().skill, inputModes: ['application/pdf', 'text/plain'], description: 'Better words.' },
    };
    expect(checkManifestChange(recon(), reordered, registry())).toEqual([]);
    const preview = at(recon(), 'preview');
    expect(checkManifestChange(preview, { ...preview, handler: 'recon.v4.reconcile' }, registry())).toEqual([]);
  });

  it('refuses changing the id or creating an id that exists', () => {
    expect(paths(checkManifestChange(recon(), { ...recon(), id: 'other' }, registry()))).toEqual(['$.id']);
    expect(checkManifestChange(undefined, recon(), registry())[0].message).toContain('already exists');
  });
});

describe('sunsetIssues', () => {
  const now = new Date('2027-01-01T00:00:00.000Z');
  const dep = given.manifest({ id: 'old', state: 'deprecated', deprecationReason: 'old' });
  it('asks for at least the minimum notice when a sunset is set or moved', () => {
    expect(sunsetIssues(dep, { ...dep, sunsetAt: '2027-01-05T00:00:00.000Z' }, now, 7)).toEqual([
      { path: '$.sunset_at', message: expect.stringContaining('at least 7 day(s) of notice') },
    ]);
    expect(sunsetIssues(dep, { ...dep, sunsetAt: '2027-01-09T00:00:00.000Z' }, now, 7)).toEqual([]);
    expect(sunsetIssues(undefined, { ...dep, sunsetAt: '2026-12-01T00:00:00.000Z' }, now, 7)).toHaveLength(1);
  });
  it('keeping a passed date, clearing it, or removing the capability is always allowed', () => {
    const past = { ...dep, sunsetAt: '2026-12-01T00:00:00.000Z' };
    expect(sunsetIssues(past, { ...past, skill: { ...past.skill, name: 'Renamed' } }, now, 7)).toEqual([]);
    expect(sunsetIssues(past, { ...past, sunsetAt: null }, now, 7)).toEqual([]);
    expect(sunsetIssues(dep, { ...dep, state: 'removed', sunsetAt: '2026-12-01T00:00:00.000Z' }, now, 7)).toEqual([]);
  });
});
