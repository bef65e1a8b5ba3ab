import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RevisionTable } from './RevisionHistory';

afterEach(cleanup);

const revisions = [
  {
    revision: 5,
    actor: 'ci-finance',
    summary: 'apply: +1 ~1 deprecated 0 removed 0',
    createdAt: '2026-12-01T10:00:00.000Z',
    capabilities: [
      { capabilityId: 'invoice-lookup', action: 'manifest.update' },
      { capabilityId: 'invoice-search', action: 'manifest.create' },
    ],
  },
  { revision: 4, actor: 'alice', summary: 'update agent settings', createdAt: '2026-11-30T10:00:00.000Z', capabilities: [] },
];

describe('<RevisionTable>', () => {
  it('shows who, what and which capabilities per revision, and offers a rollback to every older one', () => {
    const onRollback = vi.fn();
    render(<RevisionTable revisions={revisions} newest onRollback={onRollback} />);
    const rows = within(screen.getByRole('table', { name: 'Revisions of the agent, newest first' }))
      .getAllByRole('row')
      .slice(1);
    expect(rows.map((r) => r.getAttribute('data-revision'))).toEqual(['5', '4']);
    expect(rows[0]!.textContent).toContain('invoice-lookup (update), invoice-search (create)');
    expect(rows[0]!.textContent).toContain('ci-finance');
    expect(within(rows[0]!).queryByRole('button')).toBeNull();
    expect(rows[1]!.textContent).toContain('—');
    fireEvent.click(screen.getByRole('button', { name: 'Plan a rollback to revision 4' }));
    expect(onRollback).toHaveBeenCalledWith(4);
  });

  it('offers a rollback on every row of an older page, none without the handler, and says when there is no revision', () => {
    const { unmount } = render(<RevisionTable revisions={revisions} newest={false} onRollback={() => undefined} />);
    expect(screen.getAllByRole('button').map((b) => b.textContent)).toEqual([
      'Plan a rollback to revision 5',
      'Plan a rollback to revision 4',
    ]);
    unmount();
    render(<RevisionTable revisions={revisions} newest />);
    expect(screen.queryByRole('button')).toBeNull();
    cleanup();
    render(<RevisionTable revisions={[]} newest />);
    expect(screen.getByText('No revision recorded yet.')).toBeTruthy();
  });
});
