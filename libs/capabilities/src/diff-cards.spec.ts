import { buildPublicCard } from './cards';
import type { AgentCard, AgentSkill } from './card-types';
import { diffCards, hasBreakingChange } from './diff-cards';
import { financeAgentExample } from './fixtures/finance-agent';
import { given } from './testing/given';

const base = (): AgentCard => buildPublicCard(given.snapshot(financeAgentExample().manifests));
const withSkill = (card: AgentCard, patch: Partial<AgentSkill>): AgentCard => ({
  ...card,
  skills: card.skills.map((s) => ({ ...s, ...patch })),
});
const kinds = (prev: AgentCard, next: AgentCard) => diffCards(prev, next).map((c) => [c.kind, c.breaking]);

describe('diffCards', () => {
  it('reports nothing for identical cards', () => {
    expect(diffCards(base(), base())).toEqual([]);
  });

  it('skill added is not breaking; skill removed is', () => {
    const extra = { id: 'zz-new', name: 'New', description: 'New one.', tags: ['x'] };
    const more = { ...base(), skills: [...base().skills, extra] };
    expect(kinds(base(), more)).toEqual([['skill-added', false]]);
    expect(diffCards(more, base())).toEqual([
      { kind: 'skill-removed', skillId: 'zz-new', breaking: true, detail: 'skill zz-new (New) removed' },
    ]);
  });

  it.each([
    ['name-changed', { name: 'Find an invoice' }],
    ['description-changed', { description: 'Other.' }],
    ['examples-changed', { examples: ['Another'] }],
    ['tags-changed', { tags: ['finance'] }],
  ])('%s is not breaking', (kind, patch) => {
    expect(kinds(base(), withSkill(base(), patch))).toEqual([[kind, false]]);
  });

  it('classifies narrowed modes as breaking and widened as not, per direction', () => {
    expect(kinds(base(), withSkill(base(), { inputModes: ['text/plain'] }))).toEqual([['input-modes-narrowed', true]]);
    expect(kinds(base(), withSkill(base(), { inputModes: ['text/plain', 'application/pdf', 'image/png'] }))).toEqual([
      ['input-modes-widened', false],
    ]);
    expect(kinds(base(), withSkill(base(), { outputModes: ['text/csv'] }))).toEqual([
      ['output-modes-narrowed', true],
      ['output-modes-widened', false],
    ]);
  });

  it('compares effective modes: a skill without modes uses the card defaults', () => {
    const noModes = withSkill(base(), { inputModes: undefined });
    expect(kinds(base(), noModes)).toEqual([['input-modes-narrowed', true]]); // defaults are text/plain only
  });

  it('classifies extension changes', () => {
    const ext = (required: boolean) => ({
      ...base(),
      capabilities: { ...base().capabilities, extensions: [{ uri: 'https://x.example/ext/v1', required }] },
    });
    expect(kinds(base(), ext(false))).toEqual([['extension-added', false]]);
    expect(kinds(base(), ext(true))).toEqual([['extension-added', true]]);
    expect(kinds(ext(false), ext(true))).toEqual([['extension-made-required', true]]);
    expect(kinds(ext(true), ext(false))).toEqual([['extension-made-optional', false]]);
    expect(kinds(ext(false), base())).toEqual([['extension-removed', true]]);
  });

  it('classifies capability flags, interfaces and security', () => {
    const b = base();
    const flags = { ...b, capabilities: { ...b.capabilities, pushNotifications: true, extendedAgentCard: false } };
    expect(kinds(b, flags)).toEqual([
      ['capability-enabled', false],
      ['capability-disabled', true],
    ]);
    expect(kinds(b, { ...b, supportedInterfaces: b.supportedInterfaces.slice(0, 1) })).toEqual([['interface-removed', true]]);
    expect(kinds(b, { ...b, securitySchemes: {} })).toEqual([['security-changed', true]]);
    expect(hasBreakingChange(diffCards(b, { ...b, description: 'Other' }))).toBe(false);
  });
});
