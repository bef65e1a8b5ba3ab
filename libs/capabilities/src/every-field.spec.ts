/**
 * Every shape defined once (issue 29, ADR 0213). The type-level cases are compiled by
 * `npm run typecheck`: each `@ts-expect-error` fails the type check if its line ever compiles,
 * i.e. if a table missing a field (or naming an unknown one) stopped being an error.
 */
import type { AgentSkill } from './card-types';
import type { AssertTrue, EveryField, SameKeys } from './every-field';
import { copySkill } from './manifest-document';
import { SKILL_FIELDS, SKILL_LIST_FIELDS, skillBlockSchema } from './manifest-schema';
import { projectSkill } from './skill-projection';
import { given } from './testing';
import type { SkillBlock } from './types';

/** A complete table, whatever the fields are today (built from the schema's own list). */
const complete = Object.fromEntries(SKILL_FIELDS.map((k) => [k, 'x'])) as EveryField<SkillBlock, string>;

// @ts-expect-error a skill-field table without `outputModes` does not compile
const _missingOne = { name: 1, description: 1, tags: 1, examples: 1, inputModes: 1 } satisfies EveryField<SkillBlock, number>;

const _withExtra = {
  ...complete,
  // @ts-expect-error nor does one naming a field the schema does not have
  inputModez: 'list',
} satisfies EveryField<SkillBlock, string>;

class SkillLikeModel {
  name!: string;
  description!: string;
  tags!: string[];
  examples?: string[];
  inputModes?: string[];
}
// @ts-expect-error a GraphQL-style class lacking a skill field (outputModes) fails the key check
type LacksOutputModes = AssertTrue<SameKeys<SkillLikeModel, SkillBlock>>;

/** An exported type keeps the type-only cases from being unused. */
export type Checked = [LacksOutputModes, AssertTrue<SameKeys<AgentSkill, SkillBlock & { id: string }>>];

const everyField: SkillBlock = {
  name: 'Reconcile invoice',
  description: 'Matches an invoice to its purchase order.',
  tags: ['finance'],
  examples: ['reconcile INV-1'],
  inputModes: ['application/pdf'],
  outputModes: ['application/json'],
};

describe('the skill shape, declared once in skillBlockSchema', () => {
  it('field lists come from the schema, in its order', () => {
    expect(SKILL_FIELDS).toEqual(Object.keys(skillBlockSchema.shape));
    expect(SKILL_LIST_FIELDS).toEqual(['tags', 'examples', 'inputModes', 'outputModes']);
  });

  it('a document copy and a card skill carry every field of the schema, lists copied', () => {
    const copy = copySkill(everyField);
    expect(copy).toEqual(everyField);
    expect(copy.tags).not.toBe(everyField.tags);
    const skill = projectSkill(given.manifest({ id: 'reconcile-invoice', skill: everyField }), new Set());
    expect(Object.keys(skill).sort()).toEqual(['id', ...SKILL_FIELDS].sort());
    expect(skill).toEqual({ id: 'reconcile-invoice', ...everyField });
  });

  it('absent optional fields stay absent', () => {
    const bare: SkillBlock = { name: 'N', description: 'D', tags: ['t'] };
    expect(Object.keys(copySkill(bare))).toEqual(['name', 'description', 'tags']);
  });
});
