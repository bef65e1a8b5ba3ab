import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { formatFieldValue, planFieldRows, planIsEmpty, planRows, planWarnings, type Plan } from '../logic/plan';
import { PlanView } from './PlanView';

const plan = (over: Partial<Plan> = {}): Plan => ({
  dryRun: true,
  applied: false,
  revision: 7,
  breaking: false,
  added: [],
  removed: [],
  deprecated: [],
  unchanged: [],
  changed: [],
  leaks: [],
  publicCardDiff: [],
  approvalRequired: [],
  changeRequest: null,
  ...over,
});

afterEach(cleanup);

describe('plan logic', () => {
  it('lists changes before unchanged capabilities, with the changed fields', () => {
    const rows = planRows(
      plan({ unchanged: ['a'], added: ['b'], changed: [{ id: 'c', fields: ['skill.description', 'tags'], values: [] }], removed: ['d'] }),
    );
    expect(rows.map((r) => `${r.kind}:${r.capabilityId}`)).toEqual(['added:b', 'removed:d', 'changed:c', 'unchanged:a']);
    expect(rows.find((r) => r.capabilityId === 'c')?.detail).toBe('skill.description, tags');
  });

  it('warns about breaking public-card rows and about leaks, and says nothing for a harmless plan', () => {
    expect(planWarnings(plan())).toEqual([]);
    const risky = plan({
      breaking: true,
      publicCardDiff: [
        { kind: 'skill-removed', skillId: 'x', extensionUri: null, detail: 'x removed', breaking: true },
        { kind: 'skill-added', skillId: 'y', extensionUri: null, detail: 'y added', breaking: false },
      ],
      leaks: [{ skillId: 'secret', field: 'description', text: 'partner only' }],
    });
    expect(planWarnings(risky)).toEqual([
      '1 breaking change(s) to the public card',
      '1 leak(s): the public card would show text of non-public skills',
    ]);
    expect(planWarnings(plan({ breaking: true }))).toEqual(['this change is breaking']);
  });

  it('gives each changed field its old and new value, text as is, the rest as JSON, unset as such', () => {
    expect(formatFieldValue('invoices.v1.lookup')).toBe('invoices.v1.lookup');
    expect(formatFieldValue(['acme'])).toBe('[\n  "acme"\n]');
    expect(formatFieldValue(null)).toBe('(not set)');
    expect(formatFieldValue(false)).toBe('false');
    const rows = planFieldRows(
      plan({
        changed: [
          {
            id: 'c',
            fields: ['handler', 'replacedBy'],
            values: [
              { field: 'handler', before: 'a.v1', after: 'a.v2' },
              { field: 'replacedBy', before: null, after: 'd' },
            ],
          },
        ],
      }),
    );
    expect(rows).toEqual([
      { capabilityId: 'c', field: 'handler', before: 'a.v1', after: 'a.v2' },
      { capabilityId: 'c', field: 'replacedBy', before: '(not set)', after: 'd' },
    ]);
  });

  it('knows an empty plan', () => {
    expect(planIsEmpty(plan({ unchanged: ['a'] }))).toBe(true);
    expect(planIsEmpty(plan({ changed: [{ id: 'a', fields: ['tags'], values: [] }] }))).toBe(false);
  });
});

describe('<PlanView>', () => {
  it('marks breaking rows of the public-card diff and shows each leak with its text', () => {
    render(
      <PlanView
        plan={plan({
          publicCardDiff: [
            {
              kind: 'skill-removed',
              skillId: 'invoice-lookup',
              extensionUri: null,
              detail: 'removed from the public card',
              breaking: true,
            },
            { kind: 'skill-changed', skillId: 'other', extensionUri: null, detail: 'description changed', breaking: false },
          ],
          leaks: [{ skillId: 'reconcile-invoice', field: 'description', text: 'reconcile against the PO' }],
          removed: ['invoice-lookup'],
        })}
      />,
    );
    const diff = screen.getByRole('table', { name: 'Changes to the public card' });
    const rows = within(diff).getAllByRole('row').slice(1);
    expect(rows.map((r) => r.getAttribute('data-breaking'))).toEqual(['true', 'false']);
    expect(rows[0]!.className).toBe('breaking');
    expect(within(screen.getByRole('list', { name: 'Warnings' })).getAllByRole('listitem')).toHaveLength(2);
    expect(screen.getByRole('list', { name: 'Leaks' }).textContent).toContain(
      'reconcile-invoice.description would show “reconcile against the PO”',
    );
    expect(screen.getByText('Planned against revision', { exact: false }).textContent).toContain('7');
  });

  it('shows each changed field old | new, side by side', () => {
    render(
      <PlanView
        plan={plan({
          changed: [
            {
              id: 'invoice-lookup',
              fields: ['skill.description', 'tenants'],
              values: [
                { field: 'skill.description', before: 'Finds an invoice.', after: 'Finds an invoice by number.' },
                { field: 'tenants', before: ['acme'], after: ['acme', 'globex'] },
              ],
            },
          ],
        })}
      />,
    );
    const table = screen.getByRole('table', { name: 'Changed fields, old and new value side by side' });
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Capability', 'Field', 'Old', 'New']);
    const cells = within(table)
      .getAllByRole('row')
      .slice(1)
      .map((r) =>
        within(r)
          .getAllByRole('cell')
          .map((c) => c.textContent),
      );
    expect(cells).toEqual([
      ['invoice-lookup', 'skill.description', 'Finds an invoice.', 'Finds an invoice by number.'],
      ['invoice-lookup', 'tenants', JSON.stringify(['acme'], null, 2), JSON.stringify(['acme', 'globex'], null, 2)],
    ]);
  });

  it('says when the public card does not change and when the plan changes nothing', () => {
    render(<PlanView plan={plan({ unchanged: ['invoice-lookup'], applied: true, dryRun: false })} />);
    expect(screen.getByText('The public card does not change.')).toBeTruthy();
    expect(screen.getByText(/Applied against revision/).textContent).toContain('no change');
    expect(screen.queryByRole('list', { name: 'Warnings' })).toBeNull();
    expect(screen.queryByRole('table', { name: 'Changed fields, old and new value side by side' })).toBeNull();
  });
});
