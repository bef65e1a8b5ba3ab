import { financeAgentExample } from './fixtures/finance-agent';
import { changedFields, fieldValue } from './manifest-diff';

describe('fieldValue', () => {
  const [base] = financeAgentExample().manifests;

  it('reads every field changedFields names, top level and skill, on both sides of the change', () => {
    const next = { ...base, handler: 'other.v2', replacedBy: 'x', skill: { ...base.skill, description: 'New text.' } };
    const fields = changedFields(base, next);
    expect(fields).toEqual(['handler', 'replacedBy', 'skill.description']);
    expect(fields.map((f) => [fieldValue(base, f), fieldValue(next, f)])).toEqual([
      [base.handler, 'other.v2'],
      [base.replacedBy, 'x'],
      [base.skill.description, 'New text.'],
    ]);
  });

  it('is undefined for a field the manifest does not set', () => {
    expect(fieldValue({ ...base, replacedBy: undefined }, 'replacedBy')).toBeUndefined();
  });
});
