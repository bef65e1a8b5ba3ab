import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { problemsAt, TextField } from './Form';

afterEach(cleanup);

const error = new ApiError('BAD_USER_INPUT', 'invalid input', [
  { path: '$.id', message: 'must be a lowercase slug' },
  { path: '$.protocol.webhookAllow[0]', message: 'would allow every address' },
  { path: '$.identity', message: 'not the id field' },
]);

describe('form problems', () => {
  it('belong to a field at its path or inside it, never to a field whose name merely starts alike', () => {
    expect(problemsAt(error, 'id').map((p) => p.path)).toEqual(['$.id']);
    expect(problemsAt(error, 'protocol.webhookAllow').map((p) => p.message)).toEqual(['would allow every address']);
    expect(problemsAt(error, 'protocol').map((p) => p.path)).toEqual(['$.protocol.webhookAllow[0]']);
    expect(problemsAt(error, 'name')).toEqual([]);
    expect(problemsAt(undefined, 'id')).toEqual([]);
  });

  it('shows them under the field, which is marked invalid and described by them', () => {
    render(<TextField label="Tenant id" field="id" value="Bad" onChange={() => {}} error={error} hint="a slug" />);
    const input = screen.getByRole('textbox', { name: 'Tenant id' });
    expect(input.getAttribute('aria-invalid')).toBe('true');
    const list = screen.getByRole('list', { name: 'Problems with Tenant id' });
    expect(list.textContent).toBe('$.id must be a lowercase slug');
    expect(input.getAttribute('aria-describedby')?.split(' ')).toContain(list.id);
  });

  it('a field without problems is not marked', () => {
    render(<TextField label="Tenant name" field="name" value="x" onChange={() => {}} error={error} />);
    expect(screen.getByRole('textbox', { name: 'Tenant name' }).getAttribute('aria-invalid')).toBeNull();
    expect(screen.queryByRole('list')).toBeNull();
  });
});
